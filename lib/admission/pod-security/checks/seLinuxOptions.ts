import type { Check, CheckResult, PodMeta, PodSpec, SELinuxOptions } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";
import { goSetList } from "../go-sets";

const selinuxAllowedTypes1_0: ReadonlySet<string> = new Set([
  "",
  "container_t",
  "container_init_t",
  "container_kvm_t",
]);
const selinuxAllowedTypes1_31: ReadonlySet<string> = new Set([
  "",
  "container_t",
  "container_init_t",
  "container_kvm_t",
  "container_engine_t",
]);

/**
 * Setting the SELinux type is restricted, and setting a custom SELinux user or role is forbidden.
 * Restricted fields: seLinuxOptions.{type,user,role} of the pod's and every container's
 * securityContext. Allowed types: undefined/empty, container_t, container_init_t,
 * container_kvm_t, and from v1.31 container_engine_t; user and role: undefined/empty.
 */
function evaluate(spec: PodSpec, allowedTypes: ReadonlySet<string>): CheckResult {
  const badSetters: string[] = [];
  const badTypes = new Set<string>();
  let setUser = false;
  let setRole = false;

  const valid = (opts: SELinuxOptions) => {
    let ok = true;
    const type = opts.type ?? "";
    if (!allowedTypes.has(type)) {
      ok = false;
      badTypes.add(type);
    }
    if ((opts.user ?? "").length > 0) {
      ok = false;
      setUser = true;
    }
    if ((opts.role ?? "").length > 0) {
      ok = false;
      setRole = true;
    }
    return ok;
  };

  const podOpts = spec.securityContext?.seLinuxOptions;
  if (podOpts !== undefined && podOpts !== null && !valid(podOpts)) badSetters.push("pod");

  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    const opts = c.securityContext?.seLinuxOptions;
    if (opts !== undefined && opts !== null && !valid(opts)) badContainers.push(c.name ?? "");
  });
  if (badContainers.length > 0) {
    badSetters.push(
      `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)}`,
    );
  }

  if (badSetters.length > 0) {
    const badData: string[] = [];
    if (badTypes.size > 0) {
      badData.push(
        `${pluralize("type", "types", badTypes.size)} ${joinQuote(goSetList(badTypes))}`,
      );
    }
    if (setUser) badData.push("user may not be set");
    if (setRole) badData.push("role may not be set");
    return {
      allowed: false,
      forbiddenReason: "seLinuxOptions",
      forbiddenDetail: `${badSetters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${badData.join("; ")}`,
    };
  }
  return ALLOWED;
}

const seLinuxOptions1_0 = (_meta: PodMeta, spec: PodSpec) => evaluate(spec, selinuxAllowedTypes1_0);

const seLinuxOptions1_31 = (_meta: PodMeta, spec: PodSpec) =>
  evaluate(spec, selinuxAllowedTypes1_31);

export const seLinuxOptions: Check = {
  id: "seLinuxOptions",
  level: "baseline",
  versions: [
    { minimumVersion: v1(0), checkPod: seLinuxOptions1_0 },
    { minimumVersion: v1(31), checkPod: seLinuxOptions1_31 },
  ],
};
