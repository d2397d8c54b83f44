// Plain Node (no Next, no "server-only"): shared by the dashboard server and the command line.
/**
 * Reads the apiserver's AdmissionConfiguration file (the dashboard's PORTCULLIS_ADMISSION_CONFIG,
 * the command line's --admission-config): what the PodSecurity plugin is configured with, and
 * each plugin's staticManifestsDir. A plugin's `path` is read relative to the file's folder, as
 * the apiserver reads it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import {
  parseAdmissionConfiguration,
  pluginEntry,
  type AdmissionConfigurationFile,
  type PodSecurityConfig,
} from "@/lib/admission/model/admission-configuration";
import { readPodSecurityConfig } from "@/lib/admission/pod-security/configuration";

/** What one AdmissionConfiguration file configures. */
export interface AdmissionConfig {
  readonly file: string;
  readonly config: AdmissionConfigurationFile;
  readonly podSecurity: PodSecurityConfig;
}

/** Reads and checks `file`; throws an Error naming the file and the problem. */
export function readAdmissionConfig(file: string): AdmissionConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(
      `cannot read the admission configuration ${file}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  let config: AdmissionConfigurationFile;
  try {
    config = parseAdmissionConfiguration(text);
  } catch (e) {
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const entry = pluginEntry(config, "PodSecurity");
  let configuration = entry?.configuration;
  let source = file;
  if (!configuration && entry?.path) {
    const own = path.resolve(path.dirname(file), entry.path);
    source = `${file} (PodSecurity: ${own})`;
    let parsed: unknown;
    try {
      parsed = parse(readFileSync(own, "utf8"));
    } catch (e) {
      throw new Error(
        `cannot read the PodSecurity configuration ${own}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    configuration =
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
  }
  return { file, config, podSecurity: readPodSecurityConfig(configuration, source) };
}
