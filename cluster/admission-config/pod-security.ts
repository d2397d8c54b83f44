import type { AdmissionPluginEntry } from "./index";

/** The PodSecurity plugin's defaults and exemptions for the local control plane (none yet). */
export function podSecurityPlugins(_dir: string): AdmissionPluginEntry[] {
  return [];
}
