/**
 * How a pod is evaluated against a Pod Security Standard: k8s.io/pod-security-admission
 * `policy/registry.go`, `policy/checks.go` (which checks run at a level and version, in which
 * order, and how their results read).
 */
import { CHECKS } from "./checks";
import { goSortStrings } from "./go-sets";
import type { LevelVersion } from "./labels";
import {
  older,
  v1,
  versionString,
  type Check,
  type CheckPodFn,
  type CheckResult,
  type PodMeta,
  type PodSpec,
  type Version,
} from "./types";

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
  const baselineAt = new Map<string, Map<string, CheckPodFn>>();
  const restrictedAt = new Map<string, Map<string, CheckPodFn>>();
  /** Baseline checks replaced at each version (only restricted checks name overrides). */
  const overridesAt = new Map<string, Set<string>>();
  const inflate = (c: Check, into: Map<string, Map<string, CheckPodFn>>) => {
    c.versions.forEach((vc, i) => {
      const next = c.versions[i + 1]?.minimumVersion ?? nextMinor(maxVersion);
      for (let v = vc.minimumVersion; older(v, next); v = nextMinor(v)) {
        let m = into.get(key(v));
        if (!m) into.set(key(v), (m = new Map()));
        m.set(c.id, vc.checkPod);
        for (const o of vc.overrideCheckIDs ?? []) {
          let s = overridesAt.get(key(v));
          if (!s) overridesAt.set(key(v), (s = new Set()));
          s.add(o);
        }
      }
    });
  };
  for (const c of checks) inflate(c, c.level === "restricted" ? restrictedAt : baselineAt);
  const idsOf = (level: Check["level"]) =>
    goSortStrings(checks.filter((c) => c.level === level).map((c) => c.id));
  const ordered = [...idsOf("baseline"), ...idsOf("restricted")];
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
export function evaluatePod(
  lv: LevelVersion,
  meta: PodMeta,
  spec: PodSpec,
  /** The apiserver's minor: its registry ends there (default: every check here, 1.37's). */
  newestMinor?: number,
): CheckResult[] {
  if (lv.level === "privileged") return [];
  registry ??= populate(CHECKS);
  const newest =
    newestMinor !== undefined && older(v1(newestMinor), registry.maxVersion)
      ? v1(newestMinor)
      : registry.maxVersion;
  const version = older(newest, lv.version) ? newest : lv.version;
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
