/**
 * Whether the apiserver can call a hook's Service backend, judged from the Service and its
 * EndpointSlices as its service resolver reads them (k8s.io/apiserver pkg/util/proxy). The health
 * page and lint rule L7 both judge from here. Pure, and free of imports: lint runs in the browser.
 *
 * The resolver is one of two, chosen by a kube-apiserver flag no API reveals:
 * - ResolveCluster (the default) calls the Service's ClusterIP at the Service port the hook names
 *   ("no service port N found" without it), refuses a headless Service (ClusterIP "None") and
 *   calls an ExternalName Service's externalName at the hook's port;
 * - ResolveEndpoint (--enable-aggregator-routing) needs that Service port too, refuses the type
 *   ExternalName, and calls a ready endpoint of an EndpointSlice whose port has the Service
 *   port's name ("no endpoints available for service" otherwise), headless or not.
 * Behind a ClusterIP, kube-proxy picks endpoints by the same port name, so a Service with ready
 * endpoints under other port names fails either way.
 */

/** What the resolver reads of a Service (a V1Service fits). */
export interface ServiceLike {
  readonly spec?: {
    readonly type?: string;
    readonly clusterIP?: string;
    readonly externalName?: string;
    readonly ports?: ReadonlyArray<{ readonly name?: string; readonly port: number }>;
  };
}

/** What the resolver reads of an EndpointSlice (a V1EndpointSlice fits). */
export interface EndpointSliceLike {
  readonly ports?: ReadonlyArray<{ readonly name?: string | null; readonly port?: number | null }>;
  readonly endpoints?: ReadonlyArray<{ readonly conditions?: { readonly ready?: boolean | null } }>;
}

/** A Service backend as the resolver sees it. */
export interface ServiceBackendFacts {
  /** Whether the Service exists (undefined: it could not be read). */
  serviceExists?: boolean;
  /** Ready endpoints the apiserver may call: on slice ports named like the Service port. */
  readyEndpoints?: number;
  /** Ready endpoints of the Service's slices that have no port of that name. */
  readyOnOtherPorts?: number;
  /** The port the hook calls, and whether the Service has it (and under which name). */
  port?: number;
  portServed?: boolean;
  portName?: string;
  /** spec.type (ClusterIP when unset) and, for ExternalName, the name. */
  serviceType?: string;
  externalName?: string;
  /** spec.clusterIP is "None". */
  headless?: boolean;
}

/** Ready endpoints the resolver can pick for a Service port named `portName` (RandomEndpoint). */
export function endpointsForPort(
  slices: readonly EndpointSliceLike[],
  portName: string,
): { ready: number; readyOnOtherPorts: number } {
  let ready = 0;
  let readyOnOtherPorts = 0;
  for (const slice of slices) {
    const n = (slice.endpoints ?? []).filter((ep) => ep.conditions?.ready !== false).length;
    // A slice port without a name (null) matches no Service port, not even an unnamed one: the
    // EndpointSlice controller writes name "" for those.
    const serves = (slice.ports ?? []).some(
      (p) => p.name !== undefined && p.name !== null && p.name === portName && p.port != null,
    );
    if (serves) ready += n;
    else readyOnOtherPorts += n;
  }
  return { ready, readyOnOtherPorts };
}

/**
 * The facts of a Service backend from the objects: `service` undefined when it does not exist;
 * `slices` the EndpointSlices labelled kubernetes.io/service-name with its name (undefined when
 * they were not read).
 */
export function serviceBackendFacts(
  service: ServiceLike | undefined,
  slices: readonly EndpointSliceLike[] | undefined,
  port: number,
): ServiceBackendFacts {
  if (!service) return { serviceExists: false, port };
  const sp = (service.spec?.ports ?? []).find((p) => p.port === port);
  const counts = sp && slices ? endpointsForPort(slices, sp.name ?? "") : undefined;
  return {
    serviceExists: true,
    port,
    portServed: sp !== undefined,
    portName: sp ? (sp.name ?? "") : undefined,
    serviceType: service.spec?.type,
    externalName: service.spec?.externalName,
    headless: service.spec?.clusterIP === "None",
    readyEndpoints: counts?.ready,
    readyOnOtherPorts: counts?.readyOnOtherPorts,
  };
}

export interface BackendJudgement {
  severity: "critical" | "high" | "medium";
  code: string;
  /** A short heading (lint's title). */
  title: string;
  message: string;
}

/** What stands between the apiserver and a Service backend; empty when nothing does. */
export function judgeServiceBackend(
  b: ServiceBackendFacts,
  failClosed: boolean,
): BackendJudgement[] {
  const out: BackendJudgement[] = [];
  const blocking = failClosed ? "critical" : "high";
  const refused = failClosed ? ": every matching request is refused" : "";
  const port = b.port ?? 443;
  if (b.serviceExists === false) {
    out.push({
      severity: blocking,
      code: "service-missing",
      title: "Webhook service missing",
      message: `the backend Service does not exist${refused}`,
    });
    return out;
  }
  if (!b.serviceExists) return out;
  if (b.serviceType === "ExternalName") {
    // No endpoints and no port check by design.
    out.push({
      severity: "medium",
      code: "external-name-service",
      title: "ExternalName webhook service",
      message: `the backend Service is of type ExternalName (${b.externalName ?? "no name"}): the apiserver calls ${b.externalName ?? "it"}:${port} when it routes to Services by ClusterIP (the default), and refuses every call with unsupported service type "ExternalName" when started with --enable-aggregator-routing`,
    });
    return out;
  }
  if (b.portServed === false) {
    out.push({
      severity: blocking,
      code: "service-port-missing",
      title: "Webhook service port missing",
      message: `the backend Service has no port ${port}: every call fails with no service port ${port} found${refused}`,
    });
  }
  if (b.headless) {
    out.push({
      severity: failClosed ? "high" : "medium",
      code: "headless-service",
      title: "Headless webhook service",
      message: `the backend Service is headless (clusterIP None): the apiserver refuses every call with cannot route to service with ClusterIP "None" unless started with --enable-aggregator-routing`,
    });
  }
  // Without the port there is no port name to look endpoints up by: the missing port says it all.
  if (b.portServed !== false && b.readyEndpoints === 0) {
    const named = b.portName ? `named "${b.portName}"` : "without a name";
    out.push({
      severity: blocking,
      code: "no-ready-endpoints",
      title: "Webhook service has no ready endpoints",
      message:
        (b.readyOnOtherPorts ?? 0) > 0
          ? `the backend Service has ${b.readyOnOtherPorts} ready endpoint(s), but none on an EndpointSlice port ${named} like Service port ${port}: the apiserver finds no endpoints available for the Service${refused}`
          : `the backend Service has no ready endpoints${refused}`,
    });
  }
  return out;
}
