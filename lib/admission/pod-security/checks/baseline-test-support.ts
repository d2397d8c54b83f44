/** Shared by the baseline checks' unit tests: picking a check's version, asserting a result. */
import { expect } from "vitest";
import type { Check, CheckPodFn, CheckResult, PodMeta, PodSpec, Version } from "../types";
import { older, v1, versionString } from "../types";

/** The check function declared for exactly version v1.minor (the Go `<check>_1_<minor>`). */
export function versionFn(check: Check, minor: number): CheckPodFn {
  const want = versionString(v1(minor));
  const found = check.versions.find((v) => versionString(v.minimumVersion) === want);
  if (!found) throw new Error(`${check.id} declares no version ${want}`);
  return found.checkPod;
}

/**
 * What a policy of the given version evaluates with (as the Go evaluator picks it): the newest
 * version not newer than it; undefined when the check does not exist yet at that version.
 */
export function checkAt(check: Check, version: Version): CheckPodFn | undefined {
  let fn: CheckPodFn | undefined;
  for (const v of check.versions) if (!older(version, v.minimumVersion)) fn = v.checkPod;
  return fn;
}

/** The declared minimum versions, e.g. ["v1.0", "v1.35"]. */
export const declaredVersions = (check: Check) =>
  check.versions.map((v) => versionString(v.minimumVersion));

export const run = (fn: CheckPodFn, spec: PodSpec, meta: PodMeta = {}): CheckResult =>
  fn(meta, spec);

export function expectForbidden(result: CheckResult, reason: string, detail: string): void {
  expect(result).toStrictEqual({
    allowed: false,
    forbiddenReason: reason,
    forbiddenDetail: detail,
  });
}

export function expectAllowed(result: CheckResult): void {
  expect(result).toStrictEqual({ allowed: true });
}
