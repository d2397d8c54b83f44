/**
 * The apiserver's AdmissionConfiguration (`--admission-control-config-file`,
 * apiserver.config.k8s.io/v1 or v1alpha1): one entry per configured admission plugin, its
 * configuration inline (`configuration`) or in a file of its own (`path`, relative to the
 * configuration file's folder). Pure: the caller reads the files (`admission/config.go`
 * ReadAdmissionConfiguration, GetAdmissionPluginConfigurationFor).
 *
 * What Portcullis reads from it: the PodSecurity plugin's defaults and exemptions (not visible
 * through the API; pod-security/configuration.ts checks them as the plugin does), and each
 * plugin's `staticManifestsDir` (where 1.37's manifest-based hooks and policies are loaded from).
 */
import { parse } from "yaml";

/** One `plugins[]` entry. */
export interface AdmissionPluginEntry {
  readonly name: string;
  /** Its configuration file, as written (resolve it against the configuration file's folder). */
  readonly path: string | undefined;
  /** Its inline configuration. */
  readonly configuration: Readonly<Record<string, unknown>> | undefined;
}

/** What an AdmissionConfiguration file says. */
export interface AdmissionConfigurationFile {
  readonly plugins: readonly AdmissionPluginEntry[];
  /**
   * The `staticManifestsDir` of each plugin whose inline configuration sets one, by plugin name
   * (MutatingAdmissionWebhook, ValidatingAdmissionWebhook, MutatingAdmissionPolicy,
   * ValidatingAdmissionPolicy).
   */
  readonly staticManifestsDirs: Readonly<Record<string, string>>;
}

/**
 * The PodSecurity plugin's configuration as written (pod-security.admission.config.k8s.io
 * PodSecurityConfiguration), defaults applied: what pod-security/configuration.ts reads.
 */
export interface PodSecurityConfig {
  /** Levels and versions for namespaces without the mode's labels (`privileged`, `latest` when unset). */
  readonly defaults: {
    readonly enforce: string;
    readonly "enforce-version": string;
    readonly audit: string;
    readonly "audit-version": string;
    readonly warn: string;
    readonly "warn-version": string;
  };
  readonly exemptions: {
    readonly usernames: readonly string[];
    readonly namespaces: readonly string[];
    readonly runtimeClasses: readonly string[];
  };
  /** Where it was read from, for the reader: the configuration file (and the plugin's own file). */
  readonly source: string;
}

const API_VERSIONS = ["apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1alpha1"];

/** Thrown for a file the apiserver would not start with. */
export class AdmissionConfigurationError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Parses an AdmissionConfiguration's text (YAML or JSON). Throws AdmissionConfigurationError. */
export function parseAdmissionConfiguration(text: string): AdmissionConfigurationFile {
  let doc: unknown;
  try {
    doc = parse(text, { uniqueKeys: true });
  } catch (e) {
    throw new AdmissionConfigurationError(
      `not YAML: ${e instanceof Error ? (e.message.split("\n")[0] ?? e.message) : String(e)}`,
    );
  }
  if (!isRecord(doc)) throw new AdmissionConfigurationError("not an object");
  const apiVersion = doc["apiVersion"];
  const kind = doc["kind"];
  if (kind !== "AdmissionConfiguration" || !API_VERSIONS.includes(String(apiVersion)))
    throw new AdmissionConfigurationError(
      `expected kind AdmissionConfiguration of ${API_VERSIONS.join(" or ")}, got ${String(kind)} of ${String(apiVersion)} (the legacy per-plugin format is not read)`,
    );
  for (const k of Object.keys(doc))
    if (!["apiVersion", "kind", "plugins"].includes(k))
      throw new AdmissionConfigurationError(`strict decoding error: unknown field "${k}"`);
  const raw = doc["plugins"] ?? [];
  if (!Array.isArray(raw)) throw new AdmissionConfigurationError("plugins: expected a list");
  const plugins: AdmissionPluginEntry[] = [];
  const staticManifestsDirs: Record<string, string> = {};
  raw.forEach((p: unknown, i) => {
    if (!isRecord(p)) throw new AdmissionConfigurationError(`plugins[${i}]: expected an object`);
    for (const k of Object.keys(p))
      if (!["name", "path", "configuration"].includes(k))
        throw new AdmissionConfigurationError(
          `strict decoding error: unknown field "plugins[${i}].${k}"`,
        );
    const name = p["name"];
    if (typeof name !== "string" || name === "")
      throw new AdmissionConfigurationError(`plugins[${i}].name: a plugin name is required`);
    const path = p["path"];
    if (path !== undefined && path !== null && typeof path !== "string")
      throw new AdmissionConfigurationError(`plugins[${i}].path: expected a string`);
    const configuration = p["configuration"];
    if (configuration !== undefined && configuration !== null && !isRecord(configuration))
      throw new AdmissionConfigurationError(`plugins[${i}].configuration: expected an object`);
    const cfg = isRecord(configuration) ? configuration : undefined;
    plugins.push({
      name,
      path: typeof path === "string" && path !== "" ? path : undefined,
      configuration: cfg,
    });
    const dir = cfg?.["staticManifestsDir"];
    if (typeof dir === "string" && dir !== "" && staticManifestsDirs[name] === undefined)
      staticManifestsDirs[name] = dir;
  });
  return { plugins, staticManifestsDirs };
}

/**
 * The configuration the apiserver hands the plugin `name`: the first entry of that name (its
 * inline configuration wins over its path, as `GetAdmissionPluginConfigurationFor` has it).
 */
export function pluginEntry(
  file: AdmissionConfigurationFile,
  name: string,
): AdmissionPluginEntry | undefined {
  return file.plugins.find((p) => p.name === name);
}
