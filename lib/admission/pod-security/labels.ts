/**
 * Which Pod Security Standard a namespace's labels select: k8s.io/pod-security-admission
 * `api/helpers.go` (labels, levels, versions, the policy of each mode).
 */
import { LATEST, v1, versionString, type Level, type Version } from "./types";

export const LABEL_PREFIX = "pod-security.kubernetes.io/";
const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

export interface LevelVersion {
  readonly level: Level;
  readonly version: Version;
}

/** `api.Policy`: the standard each mode applies. */
export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

/** `LevelVersion.String()`: `restricted:latest`, `baseline:v1.30`. */
export const levelVersionString = (lv: LevelVersion) => `${lv.level}:${versionString(lv.version)}`;

/**
 * The apiserver's default policy when its admission configuration sets none: privileged, latest,
 * in every mode. (A configuration that sets other defaults is not visible through the API.)
 */
export const DEFAULT_POLICY: Policy = {
  enforce: { level: "privileged", version: LATEST },
  audit: { level: "privileged", version: LATEST },
  warn: { level: "privileged", version: LATEST },
};

const LEVELS: readonly Level[] = ["privileged", "baseline", "restricted"];

/** A label that does not parse: `metadata.labels[KEY]: Invalid value: "V": MESSAGE`. */
export interface LabelError {
  readonly label: string;
  readonly value: string;
  readonly message: string;
}

/** `api.ParseLevel`: an unknown level reads as restricted (enforcement fails closed). */
export function parseLevel(value: string): { level: Level; error?: string } {
  return (LEVELS as readonly string[]).includes(value)
    ? { level: value as Level }
    : { level: "restricted", error: `must be one of ${LEVELS.join(", ")}` };
}

const VERSION = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** `api.ParseVersion`: latest, or v1.N; anything else reads as latest. */
export function parseVersion(value: string): { version: Version; error?: string } {
  if (value === "latest") return { version: LATEST };
  const m = VERSION.exec(value);
  const minor = m ? Number(m[1]) : NaN;
  // (Go's Atoi fails beyond int64; such a number reads as latest with the same error.)
  if (!m || !Number.isSafeInteger(minor))
    return { version: LATEST, error: `must be "latest" or "v1.x"` };
  return { version: v1(minor) };
}

/** `api.CompareLevels`. */
export function compareLevels(a: Level, b: Level): number {
  return LEVELS.indexOf(a) - LEVELS.indexOf(b);
}

/**
 * `api.PolicyToEvaluate`: the policy a namespace's labels select over `defaults`, and the labels
 * that do not parse (an unknown enforce level enforces restricted; an unknown audit or warn level
 * is privileged; an unknown version is latest). Without a warn label, warn follows a stricter
 * enforce level (and its version, unless warn-version is set).
 */
export function policyToEvaluate(
  labels: Readonly<Record<string, string>>,
  defaults: Policy = DEFAULT_POLICY,
): { policy: Policy; errors: LabelError[] } {
  const errors: LabelError[] = [];
  let { enforce, audit, warn } = defaults;
  if (Object.keys(labels).length === 0) return { policy: defaults, errors };
  const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, k);
  const note = (label: string, error: string | undefined) => {
    if (error !== undefined) errors.push({ label, value: labels[label] ?? "", message: error });
  };
  let hasEnforceLevel = false;
  if (has(ENFORCE_LEVEL_LABEL)) {
    const p = parseLevel(labels[ENFORCE_LEVEL_LABEL] ?? "");
    enforce = { ...enforce, level: p.level };
    hasEnforceLevel = p.error === undefined;
    note(ENFORCE_LEVEL_LABEL, p.error);
  }
  if (has(ENFORCE_VERSION_LABEL)) {
    const p = parseVersion(labels[ENFORCE_VERSION_LABEL] ?? "");
    enforce = { ...enforce, version: p.version };
    note(ENFORCE_VERSION_LABEL, p.error);
  }
  if (has(AUDIT_LEVEL_LABEL)) {
    const p = parseLevel(labels[AUDIT_LEVEL_LABEL] ?? "");
    audit = { ...audit, level: p.error === undefined ? p.level : "privileged" };
    note(AUDIT_LEVEL_LABEL, p.error);
  }
  if (has(AUDIT_VERSION_LABEL)) {
    const p = parseVersion(labels[AUDIT_VERSION_LABEL] ?? "");
    audit = { ...audit, version: p.version };
    note(AUDIT_VERSION_LABEL, p.error);
  }
  const hasWarnLevel = has(WARN_LEVEL_LABEL);
  if (hasWarnLevel) {
    const p = parseLevel(labels[WARN_LEVEL_LABEL] ?? "");
    warn = { ...warn, level: p.error === undefined ? p.level : "privileged" };
    note(WARN_LEVEL_LABEL, p.error);
  }
  const hasWarnVersion = has(WARN_VERSION_LABEL);
  if (hasWarnVersion) {
    const p = parseVersion(labels[WARN_VERSION_LABEL] ?? "");
    warn = { ...warn, version: p.version };
    note(WARN_VERSION_LABEL, p.error);
  }
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(enforce.level, warn.level) > 0)
    warn = { level: enforce.level, version: hasWarnVersion ? warn.version : enforce.version };
  return { policy: { enforce, audit, warn }, errors };
}

export const fullyPrivileged = (p: Policy) =>
  p.enforce.level === "privileged" &&
  p.audit.level === "privileged" &&
  p.warn.level === "privileged";
