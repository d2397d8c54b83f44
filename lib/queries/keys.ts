/**
 * Query keys: one factory per resource, each key carrying every input its query reads
 * (the context first, so switching identity never mixes data).
 */
import type { ResourceRef } from "@/lib/k8s/resources";

/**
 * placeholderData for a query whose key changes with what it reads: the previous answer stays
 * shown while the new one is read, but never across contexts (every key carries its context
 * second).
 */
export const previousOfSameContext =
  (context: string) =>
  <T>(previous: T | undefined, previousQuery: { queryKey: readonly unknown[] } | undefined) =>
    previousQuery?.queryKey[1] === context ? previous : undefined;

export const queryKeys = {
  contexts: () => ["contexts"] as const,
  /** Shared mode: one session per browser (a new sign-in reloads the page). */
  session: () => ["session"] as const,
  overview: (context: string) => ["overview", context] as const,
  /** The dashboard's own configuration: the same for every context. */
  admissionConfig: () => ["admission-config"] as const,
  collection: (context: string, r: ResourceRef) =>
    ["k8s", context, r.group, r.version, r.resource, "list"] as const,
  webhookObject: (context: string, resource: string, name: string) =>
    ["k8s", context, "admissionregistration.k8s.io", "v1", resource, "object", name] as const,
  webhookDetails: (context: string, resource: string, name: string, resourceVersion: string) =>
    ["webhook-details", context, resource, name, resourceVersion] as const,
  webhookAccess: (context: string) => ["webhook-access", context] as const,
  legacyAccess: (context: string) => ["webhook-access", context, "legacy"] as const,
  uninitialized: (context: string, stuckAfterSeconds: number) =>
    ["uninitialized", context, stuckAfterSeconds] as const,
  kindSchema: (context: string, resource: string) => ["kind-schema", context, resource] as const,
  /** `url`: the report's URL, which carries its filter. */
  health: (context: string, url: string) => ["admission-health", context, url] as const,
  /** `at`: the resourceVersions of the policy and binding collections the report was read at. */
  policyParams: (context: string, at: string) => ["policy-params", context, at] as const,
  predictState: (context: string) => ["predict-state", context] as const,
  /** `services`: the backend Services it reads (see backendServicesKey). */
  lintState: (context: string, services: string) => ["lint-state", context, services] as const,
  fights: (context: string, stamp: string) => ["fights", context, stamp] as const,
  provenanceObject: (context: string, resource: string, name: string, resourceVersion: string) =>
    ["provenance-object", context, resource, name, resourceVersion] as const,
  /** `targets`: the route's query; `at`: the backends' EndpointSlices (see endpointsFingerprint). */
  backendPods: (context: string, targets: string, at: string) =>
    ["backend-pods", context, targets, at] as const,
  decisionsFor: (context: string, auditID: string) => ["decisions", context, auditID] as const,
  /** Every decision query of a context (the live stream patches these). */
  decisionsAll: (context: string) => ["decisions", context] as const,
  decisions: (context: string, filterQuery: string, limit: number) =>
    ["decisions", context, "list", filterQuery, limit] as const,
  decisionDetail: (context: string, id: number) => ["decisions", context, "detail", id] as const,
  decisionTally: (context: string) => ["decision-tally", context] as const,
  engines: (context: string) => ["engines", context] as const,
  outsideApi: (context: string) => ["outside-api", context] as const,
  admissionManifests: (context: string) => ["admission-manifests", context] as const,
  breakGlass: (context: string) => ["break-glass", context] as const,
  breakGlassPreview: (
    context: string,
    resource: string,
    name: string,
    hook: string,
    mode: string,
  ) => ["break-glass", context, "preview", resource, name, hook, mode] as const,
};
