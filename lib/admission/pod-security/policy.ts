/**
 * Which Pod Security Standard a namespace's labels select, and how a pod is evaluated against it:
 * k8s.io/pod-security-admission `api/helpers.go` (labels, levels, versions) and
 * `policy/registry.go`, `policy/checks.go` (which checks run at a level and version, in which
 * order, and how their results read).
 */
import { CHECKS } from "./checks";
import {
  LATEST,
  older,
  v1,
  versionString,
  type Check,
  type CheckPodFn,
  type CheckResult,
  type Level,
  type PodMeta,
  type PodSpec,
  type Version,
} from "./types";

export const LABEL_PREFIX = "pod-security.kubernetes.io/";
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

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
function parseLevel(value: string): { level: Level; error?: string } {
  return (LEVELS as readonly string[]).includes(value)
    ? { level: value as Level }
    : { level: "restricted", error: `must be one of ${LEVELS.join(", ")}` };
}

const VERSION = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** `api.ParseVersion`: latest, or v1.N; anything else reads as latest. */
function parseVersion(value: string): { version: Version; error?: string } {
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

/** `LevelVersion.Equivalent`. */
export const equivalent = (a: LevelVersion, b: LevelVersion) =>
  (a.level === "privileged" && b.level === "privileged") ||
  (a.level === b.level && versionString(a.version) === versionString(b.version));

const nextMinor = (v: Version): Version => (v.latest ? v : { ...v, minor: v.minor + 1 });
const key = (v: Version) => versionString(v);

/** `policy.checkRegistry`: the checks of each level at each version, in evaluation order. */
interface Registry {
  readonly baseline: Map<string, CheckPodFn[]>;
  readonly restricted: Map<string, CheckPodFn[]>;
  readonly maxVersion: Version;
}

/** `policy.populate`: every version from v1.0 to the newest any check names. */
function populate(checks: readonly Check[]): Registry {
  let maxVersion = v1(0);
  for (const c of checks) {
    const last = (c.versions[c.versions.length - 1] as Check["versions"][number]).minimumVersion;
    if (older(maxVersion, last)) maxVersion = last;
  }
  const inflate = (
    c: Check,
    into: Map<string, Map<string, CheckPodFn>>,
    overrides: Map<string, Set<string>>,
  ) => {
    c.versions.forEach((vc, i) => {
      const next = c.versions[i + 1]?.minimumVersion ?? nextMinor(maxVersion);
      for (let v = vc.minimumVersion; older(v, next); v = nextMinor(v)) {
        let m = into.get(key(v));
        if (!m) into.set(key(v), (m = new Map()));
        m.set(c.id, vc.checkPod);
        for (const o of vc.overrideCheckIDs ?? []) {
          let s = overrides.get(key(v));
          if (!s) overrides.set(key(v), (s = new Set()));
          s.add(o);
        }
      }
    });
  };
  const baselineAt = new Map<string, Map<string, CheckPodFn>>();
  const restrictedAt = new Map<string, Map<string, CheckPodFn>>();
  const overridesAt = new Map<string, Set<string>>();
  const ignored = new Map<string, Set<string>>();
  const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const baselineIDs = checks
    .filter((c) => c.level === "baseline")
    .map((c) => c.id)
    .sort(byteOrder);
  const restrictedIDs = checks
    .filter((c) => c.level === "restricted")
    .map((c) => c.id)
    .sort(byteOrder);
  for (const c of checks)
    if (c.level === "restricted") inflate(c, restrictedAt, overridesAt);
    else inflate(c, baselineAt, ignored);
  const ordered = [...baselineIDs, ...restrictedIDs];
  const registry: Registry = { baseline: new Map(), restricted: new Map(), maxVersion };
  for (let v = v1(0); older(v, nextMinor(maxVersion)); v = nextMinor(v)) {
    const overrides = overridesAt.get(key(v)) ?? new Set<string>();
    const base = baselineAt.get(key(v)) ?? new Map<string, CheckPodFn>();
    const restricted = new Map(restrictedAt.get(key(v)) ?? []);
    for (const [id, fn] of base) if (!overrides.has(id)) restricted.set(id, fn);
    const inOrder = (m: Map<string, CheckPodFn>) =>
      ordered.flatMap((id) => (m.has(id) ? [m.get(id) as CheckPodFn] : []));
    registry.restricted.set(key(v), inOrder(restricted));
    registry.baseline.set(key(v), inOrder(base));
  }
  return registry;
}

let registry: Registry | undefined;

/**
 * `checkRegistry.EvaluatePod`: the results of every check of the level at the version (a version
 * newer than every check's, latest included, evaluates as the newest), baseline checks first,
 * each group by check ID. Privileged runs none.
 */
export function evaluatePod(lv: LevelVersion, meta: PodMeta, spec: PodSpec): CheckResult[] {
  if (lv.level === "privileged") return [];
  registry ??= populate(CHECKS);
  const version = older(registry.maxVersion, lv.version) ? registry.maxVersion : lv.version;
  const fns = (lv.level === "baseline" ? registry.baseline : registry.restricted).get(key(version));
  return (fns ?? []).map((fn) => fn(meta, spec));
}

/** `policy.AggregateCheckResult`. */
export interface Aggregate {
  readonly allowed: boolean;
  readonly reasons: string[];
  readonly details: string[];
}

export function aggregate(results: readonly CheckResult[]): Aggregate {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.forbiddenReason || "unknown forbidden reason");
    details.push(r.forbiddenDetail ?? "");
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** `AggregateCheckResult.ForbiddenDetail`: `reason (detail), reason, …`. */
export function forbiddenDetail(a: Aggregate): string {
  return a.reasons
    .map((r, i) => (a.details[i] ? `${r} (${a.details[i] as string})` : r))
    .join(", ");
}
