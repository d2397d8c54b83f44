import "server-only";
/**
 * The dashboard's view of the apiserver's AdmissionConfiguration: the file named by
 * PORTCULLIS_ADMISSION_CONFIG, read when asked (the apiserver reads it at start; a changed file
 * is what a restarted apiserver would read).
 */
import type { AdmissionConfigData } from "@/lib/api/admission-config";
import { readAdmissionConfig } from "@/server/kube/admission-config";

export function admissionConfigFromEnv(): AdmissionConfigData {
  const file = process.env.PORTCULLIS_ADMISSION_CONFIG;
  if (!file) return { file: null, podSecurity: null, error: null };
  try {
    return { file, podSecurity: readAdmissionConfig(file).podSecurity, error: null };
  } catch (e) {
    return { file, podSecurity: null, error: e instanceof Error ? e.message : String(e) };
  }
}
