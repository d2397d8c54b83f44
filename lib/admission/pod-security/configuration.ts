/**
 * The PodSecurity plugin's own configuration (k8s.io/pod-security-admission
 * `admission/api/v1` PodSecurityConfiguration, loaded by `admission/api/load`, defaulted by
 * `SetDefaults_PodSecurityDefaults`, checked by `validation.ValidatePodSecurityConfiguration`):
 * the levels and versions a namespace without Pod Security labels gets, and the users,
 * namespaces and runtime classes exempt from it. The apiserver reads it from its
 * AdmissionConfiguration (model/admission-configuration.ts); it is not visible through the API.
 */
import type { PodSecurityConfig } from "../model/admission-configuration";
import { isDNS1123Label, nameIsDNSSubdomain } from "../validate/dns";
import { duplicate, errorString, invalid, type FieldError } from "../validate/field-error";
import { FieldPath } from "../validate/field-path";
import { DEFAULT_POLICY, parseLevel, parseVersion, type Policy } from "./labels";

const API_VERSIONS = [
  "pod-security.admission.config.k8s.io/v1",
  "pod-security.admission.config.k8s.io/v1beta1",
  "pod-security.admission.config.k8s.io/v1alpha1",
];

/** A configuration the plugin refuses: the apiserver does not start with it. */
export class PodSecurityConfigurationError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** `utilerrors.NewAggregate(errs).Error()`: one message, or `[a, b]` (repeats dropped). */
function aggregate(errs: readonly FieldError[]): string {
  const texts = [...new Set(errs.map(errorString))];
  return texts.length === 1 ? (texts[0] as string) : `[${texts.join(", ")}]`;
}

/**
 * The plugin's configuration from its AdmissionConfiguration entry (`configuration`, or the
 * parsed content of its `path`; undefined when the entry gives neither, or there is none: the
 * defaults). `source` says where it came from. Throws PodSecurityConfigurationError with the
 * plugin's own words when the apiserver would refuse it.
 */
export function readPodSecurityConfig(
  configuration: Readonly<Record<string, unknown>> | undefined,
  source: string,
): PodSecurityConfig {
  const c = configuration ?? {};
  if (configuration !== undefined) {
    const apiVersion = c["apiVersion"];
    const kind = c["kind"];
    if (kind !== "PodSecurityConfiguration" || !API_VERSIONS.includes(String(apiVersion)))
      throw new PodSecurityConfigurationError(
        `${source}: expected kind PodSecurityConfiguration of ${API_VERSIONS.join(", ")}, got ${String(kind)} of ${String(apiVersion)}`,
      );
  }
  const d = isRecord(c["defaults"]) ? c["defaults"] : {};
  const e = isRecord(c["exemptions"]) ? c["exemptions"] : {};
  const orDefault = (k: string, fallback: string) => str(d[k]) || fallback;
  const config: PodSecurityConfig = {
    defaults: {
      enforce: orDefault("enforce", "privileged"),
      "enforce-version": orDefault("enforce-version", "latest"),
      audit: orDefault("audit", "privileged"),
      "audit-version": orDefault("audit-version", "latest"),
      warn: orDefault("warn", "privileged"),
      "warn-version": orDefault("warn-version", "latest"),
    },
    exemptions: {
      usernames: strings(e["usernames"]),
      namespaces: strings(e["namespaces"]),
      runtimeClasses: strings(e["runtimeClasses"]),
    },
    source,
  };
  const errs = validatePodSecurityConfig(config);
  if (errs.length > 0)
    throw new PodSecurityConfigurationError(
      `${source}: invalid PodSecurity configuration: ${aggregate(errs)}`,
    );
  return config;
}

/** `ValidatePodSecurityConfiguration`, in its order. */
function validatePodSecurityConfig(config: PodSecurityConfig): FieldError[] {
  const errs: FieldError[] = [];
  const defaults = FieldPath.root("defaults");
  const d = config.defaults;
  const level = (k: "enforce" | "warn" | "audit") => {
    const p = parseLevel(d[k]);
    if (p.error !== undefined) errs.push(invalid(defaults.child(k), d[k], p.error));
  };
  const version = (k: "enforce-version" | "warn-version" | "audit-version") => {
    const p = parseVersion(d[k]);
    if (p.error !== undefined) errs.push(invalid(defaults.child(k), d[k], p.error));
  };
  level("enforce");
  version("enforce-version");
  level("warn");
  version("warn-version");
  level("audit");
  version("audit-version");
  const exemptions = FieldPath.root("exemptions");
  const list = (
    k: "namespaces" | "runtimeClasses" | "usernames",
    check: (v: string) => string[],
  ) => {
    const seen = new Set<string>();
    config.exemptions[k].forEach((v, i) => {
      const p = exemptions.child(k).at(i);
      const problems = check(v);
      if (problems.length > 0) errs.push(invalid(p, v, problems.join(", ")));
      else if (seen.has(v)) errs.push(duplicate(p, v));
      else seen.add(v);
    });
  };
  list("namespaces", isDNS1123Label);
  list("runtimeClasses", (v) => nameIsDNSSubdomain(v, false));
  list("usernames", (v) => (v === "" ? ["username must not be empty"] : []));
  return errs;
}

/** The policy a namespace without Pod Security labels gets (`admissionapi.ToPolicy`). */
export function defaultPolicy(config: PodSecurityConfig | undefined): Policy {
  if (!config) return DEFAULT_POLICY;
  const d = config.defaults;
  return {
    enforce: {
      level: parseLevel(d.enforce).level,
      version: parseVersion(d["enforce-version"]).version,
    },
    audit: { level: parseLevel(d.audit).level, version: parseVersion(d["audit-version"]).version },
    warn: { level: parseLevel(d.warn).level, version: parseVersion(d["warn-version"]).version },
  };
}

/** What the plugin's exemptions exempt a request from, if anything (checked in this order). */
export type PodSecurityExemption =
  | { readonly by: "namespace"; readonly name: string }
  | { readonly by: "user"; readonly name: string }
  | { readonly by: "runtimeClass"; readonly name: string };

/** The sentence for an exemption. */
export function describeExemption(x: PodSecurityExemption): string {
  const what =
    x.by === "namespace"
      ? `namespace ${x.name}`
      : x.by === "user"
        ? `user ${x.name}`
        : `RuntimeClass ${x.name}`;
  return `${what} is exempt from Pod Security in the apiserver's PodSecurity configuration: the pod is not evaluated`;
}
