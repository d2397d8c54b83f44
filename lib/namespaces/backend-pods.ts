/**
 * What the deadlock map asks the cluster about the pods behind webhooks (pure, shared by the page
 * and the route that reads them): for each service-backed webhook whose Service is known and
 * selects pods, the Service's namespace and its selector as an equality label selector. A
 * backend's pods are the pods its Service selects, its workloads those whose pod template the
 * Service selects (lib/admission/lint/deadlock.ts `backendsOf`), so nothing else is read: no other
 * namespace, and no pod the selector leaves out.
 */
import type { PodLabelSource } from "@/lib/admission/lint/deadlock";

/** One namespace and selector to read pods and workload templates for. */
export interface PodLabelTarget {
  readonly namespace: string;
  /** The Service's selector as an equality label selector, keys sorted: `app=x,tier=y`. */
  readonly selector: string;
}

/** A target with the names of the Services that carry its selector (for the refresh key). */
export interface BackendTarget extends PodLabelTarget {
  readonly services: readonly string[];
}

/** At most this many targets per request (each costs a list of pods). */
export const MAX_TARGETS = 500;

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validKey(key: string): boolean {
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix)))
    return false;
  return name.length <= 63 && NAME.test(name);
}

function validValue(value: string): boolean {
  return value === "" || (value.length <= 63 && NAME.test(value));
}

/** A selector map as an equality label selector (keys sorted); undefined when it cannot be one. */
export function equalitySelectorText(
  selector: Readonly<Record<string, string>>,
): string | undefined {
  const keys = Object.keys(selector).sort();
  if (keys.length === 0) return undefined;
  const parts: string[] = [];
  for (const k of keys) {
    const v = selector[k];
    if (typeof v !== "string" || !validKey(k) || !validValue(v)) return undefined;
    parts.push(`${k}=${v}`);
  }
  return parts.join(",");
}

/** An equality label selector (`k=v,…`, as equalitySelectorText writes it) as a map; undefined if not one. */
export function parseSelector(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) return undefined;
    const k = part.slice(0, eq);
    const v = part.slice(eq + 1);
    if (!validKey(k) || !validValue(v) || k in out) return undefined;
    out[k] = v;
  }
  return out;
}

/** What backendTargets reads of a webhook configuration: the Services its webhooks call. */
interface WebhookConfigurationLike {
  readonly metadata?: { readonly name?: string };
  readonly webhooks?: ReadonlyArray<{
    readonly clientConfig?: {
      readonly service?: { readonly namespace?: string; readonly name?: string };
    };
  }>;
}

interface ServiceLike {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: { readonly selector?: Readonly<Record<string, string>> | null };
}

/**
 * The namespaces and selectors of the Services the webhooks call, one per distinct pair, sorted.
 * A Service that is missing or selects nothing is left out: its backend's labels do not come
 * from pods (see backendsOf).
 */
export function backendTargets(
  snapshot: {
    readonly mutatingWebhookConfigurations?: readonly WebhookConfigurationLike[];
    readonly validatingWebhookConfigurations?: readonly WebhookConfigurationLike[];
  },
  services: readonly ServiceLike[],
): BackendTarget[] {
  const byRef = new Map<string, ServiceLike>();
  for (const s of services)
    byRef.set(`${s.metadata?.namespace ?? ""}/${s.metadata?.name ?? ""}`, s);
  const targets = new Map<string, { namespace: string; selector: string; services: Set<string> }>();
  const configs = [
    ...(snapshot.mutatingWebhookConfigurations ?? []),
    ...(snapshot.validatingWebhookConfigurations ?? []),
  ];
  for (const c of configs)
    for (const w of c.webhooks ?? []) {
      const ref = w.clientConfig?.service;
      if (!ref?.namespace || !ref.name || !NAMESPACE.test(ref.namespace)) continue;
      const svc = byRef.get(`${ref.namespace}/${ref.name}`);
      const selector = svc?.spec?.selector ? equalitySelectorText(svc.spec.selector) : undefined;
      if (selector === undefined) continue;
      const key = `${ref.namespace}\u0000${selector}`;
      const t = targets.get(key) ?? { namespace: ref.namespace, selector, services: new Set() };
      t.services.add(ref.name);
      targets.set(key, t);
    }
  // Sorted by namespace, then selector (the map's keys, NUL-separated, order the same way).
  return [...targets]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, t]) => ({
      namespace: t.namespace,
      selector: t.selector,
      services: [...t.services].sort(),
    }));
}

/** The route's query string for the targets: `b=<namespace>/<selector>` each. */
export function targetsQuery(targets: readonly PodLabelTarget[]): string {
  const q = new URLSearchParams();
  for (const t of targets) q.append("b", `${t.namespace}/${t.selector}`);
  return q.toString();
}

/** The targets of the route's `b` parameters; an Error names the first that is not one. */
export function parseTargets(values: readonly string[]): PodLabelTarget[] | Error {
  if (values.length > MAX_TARGETS) return new Error(`at most ${MAX_TARGETS} backends per request`);
  const out: PodLabelTarget[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    const slash = v.indexOf("/");
    const namespace = slash < 0 ? "" : v.slice(0, slash);
    const selector = slash < 0 ? "" : v.slice(slash + 1);
    if (namespace.length > 63 || !NAMESPACE.test(namespace) || !parseSelector(selector))
      return new Error(`b=${JSON.stringify(v)}: not <namespace>/<key>=<value>[,…]`);
    if (seen.has(v)) continue;
    seen.add(v);
    out.push({ namespace, selector });
  }
  return out;
}

interface SliceLike {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
}

/**
 * A short fingerprint of the backends' EndpointSlices: they change whenever the pods the Services
 * select come, go or change readiness (a rollout of a new pod template among them), so a changed
 * fingerprint is when the pods' labels are worth reading again.
 */
export function endpointsFingerprint(
  targets: readonly BackendTarget[],
  slices: readonly SliceLike[],
): string {
  const wanted = new Set<string>();
  for (const t of targets) for (const s of t.services) wanted.add(`${t.namespace}/${s}`);
  const parts: string[] = [];
  for (const s of slices) {
    const m = s.metadata;
    const svc = m?.labels?.["kubernetes.io/service-name"];
    if (!m || svc === undefined || !wanted.has(`${m.namespace ?? ""}/${svc}`)) continue;
    parts.push(`${m.namespace ?? ""}/${m.name ?? ""}@${m.resourceVersion ?? ""}`);
  }
  parts.sort();
  // FNV-1a, 32 bits: a key, not a secret.
  let h = 0x811c9dc5;
  for (const part of parts)
    for (let i = 0; i < part.length; i++) {
      h ^= part.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  return `${parts.length}:${h.toString(36)}`;
}

/** Where a backend's pod labels came from, in the page's words. */
export const LABEL_SOURCE_TEXT: Readonly<Record<PodLabelSource, string>> = {
  pods: "running pods",
  workloads: "workload templates",
  "service-selector": "Service selector",
  inferred: "unknown",
};
