import type { AdmissionPluginEntry } from "./index";

/** The static manifest directories of the four admission plugins (none yet). */
export function manifestPlugins(_dir: string): AdmissionPluginEntry[] {
  return [];
}
