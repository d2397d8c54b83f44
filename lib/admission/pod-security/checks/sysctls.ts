import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, v1 } from "../types";

const union = (a: ReadonlySet<string>, more: readonly string[]): ReadonlySet<string> =>
  new Set([...a, ...more]);

/** The "safe" sysctls: namespaced in the container or pod, isolated from other pods. */
const sysctlsAllowedV1Dot0: ReadonlySet<string> = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
]);
const sysctlsAllowedV1Dot27 = union(sysctlsAllowedV1Dot0, ["net.ipv4.ip_local_reserved_ports"]);
const sysctlsAllowedV1Dot29 = union(sysctlsAllowedV1Dot27, [
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
]);
const sysctlsAllowedV1Dot32 = union(sysctlsAllowedV1Dot29, [
  "net.ipv4.tcp_rmem",
  "net.ipv4.tcp_wmem",
]);
const sysctlsAllowedV1Dot37 = union(sysctlsAllowedV1Dot32, [
  "net.ipv4.tcp_slow_start_after_idle",
  "net.ipv4.tcp_notsent_lowat",
]);

/**
 * Sysctls can disable security mechanisms or affect all containers on a host, and are disallowed
 * except for an allowed "safe" subset (which grows by version).
 * Restricted fields: spec.securityContext.sysctls[*].name.
 */
function evaluate(spec: PodSpec, allowed: ReadonlySet<string>): CheckResult {
  const forbiddenSysctls: string[] = [];
  for (const sysctl of spec.securityContext?.sysctls ?? []) {
    const name = sysctl.name ?? "";
    if (!allowed.has(name)) forbiddenSysctls.push(name);
  }
  if (forbiddenSysctls.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "forbidden sysctls",
      forbiddenDetail: forbiddenSysctls.join(", "),
    };
  }
  return ALLOWED;
}

const versionFn = (allowed: ReadonlySet<string>) => (_meta: PodMeta, spec: PodSpec) =>
  evaluate(spec, allowed);

export const sysctls: Check = {
  id: "sysctls",
  level: "baseline",
  versions: [
    { minimumVersion: v1(0), checkPod: versionFn(sysctlsAllowedV1Dot0) },
    { minimumVersion: v1(27), checkPod: versionFn(sysctlsAllowedV1Dot27) },
    { minimumVersion: v1(29), checkPod: versionFn(sysctlsAllowedV1Dot29) },
    { minimumVersion: v1(32), checkPod: versionFn(sysctlsAllowedV1Dot32) },
    { minimumVersion: v1(37), checkPod: versionFn(sysctlsAllowedV1Dot37) },
  ],
};
