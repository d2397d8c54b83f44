/** /api/admission-config: what the apiserver's AdmissionConfiguration file configures. */
import type { PodSecurityConfig } from "@/lib/admission/model/admission-configuration";
import { route } from "./contract";

export interface AdmissionConfigData {
  /** The file the dashboard was given (PORTCULLIS_ADMISSION_CONFIG); null when none. */
  file: string | null;
  /** The PodSecurity plugin's defaults and exemptions; null without the file, or when it fails. */
  podSecurity: PodSecurityConfig | null;
  /** Why the file could not be read or is refused. */
  error: string | null;
}

export const admissionConfigRoute = route<AdmissionConfigData>()({
  method: "GET",
  path: "/api/admission-config",
});
