// The apiserver's AdmissionConfiguration (--admission-control-config-file): one file, one entry per
// admission plugin that is configured. Each plugin's entry is built in a file of its own in this
// folder, so the plugins' settings stay apart.
import { writeFileSync } from "node:fs";
import path from "node:path";

import { manifestPlugins, staticManifestDirs, type StaticManifestDirs } from "./manifests";
import { podSecurityPlugins, type PodSecurityOverride } from "./pod-security";

/** One `plugins[]` entry: the plugin's name and its configuration object, written as JSON. */
export interface AdmissionPluginEntry {
  name: string;
  configuration: Record<string, unknown>;
}

/** Everything the run's AdmissionConfiguration sets up: the file, and what each plugin made. */
export interface AdmissionConfigFiles {
  /** The file passed as --admission-control-config-file. */
  file: string;
  /** Each admission plugin's static manifest directory (staticManifestsDir); absent when not configured. */
  manifests?: StaticManifestDirs;
}

/** What a run changes of the local control plane's AdmissionConfiguration. */
export interface AdmissionConfigOptions {
  /** The PodSecurity plugin's defaults and exemptions instead of the local ones. */
  podSecurity?: PodSecurityOverride;
  /**
   * Configure each plugin's static manifest directory (default true). False for a minor whose
   * apiserver refuses `staticManifestsDir` by default (before 1.37).
   */
  staticManifests?: boolean;
}

/**
 * Writes the AdmissionConfiguration of a run into `dir` and returns its path. YAML is a superset
 * of JSON, so the file is written as JSON: no quoting rules to get wrong.
 */
export function writeAdmissionConfiguration(
  dir: string,
  opts: AdmissionConfigOptions = {},
): AdmissionConfigFiles {
  const plugins: AdmissionPluginEntry[] = [
    ...podSecurityPlugins(dir, opts.podSecurity),
    ...(opts.staticManifests === false ? [] : manifestPlugins(dir)),
  ];
  const file = path.join(dir, "admission-configuration.yaml");
  writeFileSync(
    file,
    JSON.stringify(
      {
        apiVersion: "apiserver.config.k8s.io/v1",
        kind: "AdmissionConfiguration",
        plugins,
      },
      null,
      2,
    ) + "\n",
  );
  return opts.staticManifests === false ? { file } : { file, manifests: staticManifestDirs(dir) };
}
