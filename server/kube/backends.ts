import "server-only";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import type {
  AdmissionregistrationV1WebhookClientConfig,
  V1EndpointSlice,
  V1Service,
} from "@/lib/k8s/types";
import type { BackendView, ServiceBackendView } from "@/lib/webhooks/backend-view";
import { endpointsForPort } from "@/lib/admission/health/backend-judgement";

/**
 * Reads what a webhook's clientConfig points at: for a service, whether it exists, its ports and
 * its ready endpoints (EndpointSlices labelled kubernetes.io/service-name); for a url, its parts.
 */
export async function backendOf(
  client: KubeClient,
  cc: AdmissionregistrationV1WebhookClientConfig | undefined,
  signal?: AbortSignal,
): Promise<BackendView> {
  if (cc?.url) {
    try {
      const u = new URL(cc.url);
      return {
        type: "url",
        url: cc.url,
        host: u.hostname,
        port: Number(u.port || 443),
        path: u.pathname,
      };
    } catch {
      return { type: "url", url: cc.url, host: "", port: 0, path: "" };
    }
  }
  const s = cc?.service;
  if (!s) return { type: "none" };
  const port = s.port ?? 443;
  const view: ServiceBackendView = {
    type: "service",
    namespace: s.namespace,
    name: s.name,
    port,
    path: s.path,
    servicePorts: [],
    endpoints: { ready: 0, notReady: 0, addresses: [] },
  };
  try {
    const svc = await client.request<V1Service>({
      path: `/api/v1/namespaces/${encodeURIComponent(s.namespace)}/services/${encodeURIComponent(s.name)}`,
      signal,
    });
    view.exists = true;
    view.clusterIP = svc.spec?.clusterIP;
    view.serviceType = svc.spec?.type;
    view.externalName = svc.spec?.externalName;
    view.servicePorts = (svc.spec?.ports ?? []).map((p) => ({
      name: p.name,
      port: p.port,
      targetPort: p.targetPort === undefined ? undefined : String(p.targetPort),
      protocol: p.protocol,
    }));
    const served = view.servicePorts.find((p) => p.port === port);
    view.portServed = served !== undefined;
    view.portName = served ? (served.name ?? "") : undefined;
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) view.exists = false;
    else if (e instanceof KubeApiError)
      view.error = { status: e.status, reason: e.reason, message: e.message };
    else throw e;
  }
  if (view.exists) {
    try {
      const slices = await client.request<{ items: V1EndpointSlice[] }>({
        path: `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(s.namespace)}/endpointslices`,
        query: { labelSelector: `kubernetes.io/service-name=${s.name}` },
        signal,
      });
      for (const slice of slices.items) {
        for (const ep of slice.endpoints ?? []) {
          if (ep.conditions?.ready === false) view.endpoints.notReady++;
          else {
            view.endpoints.ready++;
            view.endpoints.addresses.push(...ep.addresses);
          }
        }
      }
      if (view.portName !== undefined)
        view.endpoints.readyForPort = endpointsForPort(slices.items, view.portName).ready;
    } catch (e) {
      if (e instanceof KubeApiError)
        view.error = { status: e.status, reason: e.reason, message: e.message };
      else throw e;
    }
  }
  return view;
}
