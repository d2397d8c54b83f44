import type { Check, CheckResult, Handler, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";
import { goSetList } from "../go-sets";

/** The explicit hosts of a probe's or lifecycle handler's httpGet and tcpSocket actions. */
function forbiddenHosts(handler: Handler | undefined): string[] {
  if (handler === undefined || handler === null) return [];
  const bad: string[] = [];
  const httpGetHost = handler.httpGet?.host ?? "";
  if (httpGetHost !== "") bad.push(httpGetHost);
  const tcpSocketHost = handler.tcpSocket?.host ?? "";
  if (tcpSocketHost !== "") bad.push(tcpSocketHost);
  return bad;
}

/**
 * The host field is restricted in probes and lifecycle handlers (from v1.34).
 * Restricted fields: {livenessProbe,readinessProbe,startupProbe,lifecycle.postStart,
 * lifecycle.preStop}.{httpGet,tcpSocket}.host of every container. Allowed values: "", undefined.
 * Containers and hosts are listed as sets: each once, sorted.
 */
function hostProbesAndHostLifecycle1_34(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers = new Set<string>();
  const forbidden = new Set<string>();
  visitContainers(spec, (c) => {
    const handlers = [
      c.livenessProbe,
      c.readinessProbe,
      c.startupProbe,
      c.lifecycle?.postStart,
      c.lifecycle?.preStop,
    ];
    for (const handler of handlers) {
      const hosts = forbiddenHosts(handler);
      if (hosts.length > 0) {
        badContainers.add(c.name ?? "");
        for (const h of hosts) forbidden.add(h);
      }
    }
  });
  if (badContainers.size > 0) {
    return {
      allowed: false,
      forbiddenReason: "probe or lifecycle host",
      forbiddenDetail: [
        pluralize("container", "containers", badContainers.size),
        joinQuote(goSetList(badContainers)),
        pluralize("uses", "use", badContainers.size),
        pluralize("probe or lifecycle host", "probe or lifecycle hosts", forbidden.size),
        joinQuote(goSetList(forbidden)),
      ].join(" "),
    };
  }
  return ALLOWED;
}

export const hostProbesAndHostLifecycle: Check = {
  id: "hostProbesAndHostLifecycle",
  level: "baseline",
  versions: [{ minimumVersion: v1(34), checkPod: hostProbesAndHostLifecycle1_34 }],
};
