/**
 * The bootstrap dependency graph (reference §7.1, §7.2 L1/L6): each service-backed webhook's
 * backend (namespace and pod labels), which hooks intercept the creation of those pods, the
 * fail-closed self-interceptions and cycles among fail-closed hooks, coverage of kube-system and
 * runlevel 0–1 namespaces, and backends without ready endpoints. Pure; the lint checks, the
 * deadlock map page and the command line all read it.
 */
import type { CompiledSnapshot, CompiledWebhook } from "@/lib/admission/matching/compile";
import { serviceBackendFacts } from "@/lib/admission/health/backend-judgement";
import { createMatchContext, type MatchContext } from "@/lib/admission/matching/match-context";
import { matchWebhook } from "@/lib/admission/matching/match";
import { makeRequest, type AdmissionRequest } from "@/lib/admission/model/request";
import { labelValue, selectsLabels, type Labels } from "@/lib/admission/model/selectors";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type {
  AdmissionregistrationV1WebhookClientConfig,
  V1EndpointSlice,
  V1Pod,
  V1Service,
} from "@/lib/k8s/types";

/** A Deployment, DaemonSet or StatefulSet as far as the graph reads it (its pod template). */
export interface WorkloadLike {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: {
    readonly template?: { readonly metadata?: { readonly labels?: Record<string, string> } };
  };
}

/** What the graph reads: configurations and namespaces, plus whatever backs the hooks. */
export interface DependencyInput {
  readonly snapshot: AdmissionSnapshot;
  readonly services?: readonly V1Service[];
  readonly endpointSlices?: readonly V1EndpointSlice[];
  readonly pods?: readonly V1Pod[];
  readonly workloads?: readonly WorkloadLike[];
}

/**
 * Where the backend's pod labels come from: running pods, workload templates, the Service's
 * selector, or nothing but the clientConfig (`inferred`: the pods are assumed to run in the
 * Service's namespace with labels unknown).
 */
export type PodLabelSource = "pods" | "workloads" | "service-selector" | "inferred";

/** The backend of one service-backed webhook. */
export interface Backend {
  /** `hookKey` of the webhook it serves. */
  readonly hook: string;
  readonly namespace: string;
  readonly service: string;
  readonly podLabels: readonly Labels[];
  readonly source: PodLabelSource;
  /** Whether the Service is in the input (undefined: no services given). */
  readonly serviceFound: boolean | undefined;
  /** Ready endpoints from EndpointSlices (undefined: no slices given or no Service). */
  readonly readyEndpoints: number | undefined;
}

/** A hook in the graph. */
export interface GraphHook {
  readonly key: string;
  readonly hook: CompiledWebhook;
  readonly failClosed: boolean;
  readonly backend: Backend | undefined;
  /** kube-system/kube-public/kube-node-lease and runlevel 0–1 namespaces whose pods it intercepts. */
  readonly critical: readonly string[];
}

/** `from` intercepts the creation of pods backing `to`. */
interface DependencyEdge {
  readonly from: string;
  readonly to: string;
  /** `maybe`: it depends on matchConditions that cannot be decided offline. */
  readonly verdict: "yes" | "maybe";
}

/** The whole graph. */
export interface DependencyGraph {
  readonly hooks: readonly GraphHook[];
  readonly edges: readonly DependencyEdge[];
  /** Fail-closed hooks that intercept their own backend (L1). */
  readonly selfLoops: readonly string[];
  /** Elementary cycles of length ≥ 2 among fail-closed hooks, one per strongly connected set (L6). */
  readonly cycles: ReadonlyArray<readonly string[]>;
}

const WORKLOADS: ReadonlyArray<[string, string, string]> = [
  ["", "pods", "Pod"],
  ["apps", "deployments", "Deployment"],
  ["apps", "replicasets", "ReplicaSet"],
  ["apps", "statefulsets", "StatefulSet"],
  ["apps", "daemonsets", "DaemonSet"],
  ["batch", "jobs", "Job"],
];

/** The namespaces every cluster bootstraps from. */
export const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease"];

const NAME_LABEL = "kubernetes.io/metadata.name";

/** The creation of a workload in `ns`, as the controllers that recreate backends send it. */
function createIn(
  compiled: CompiledSnapshot,
  [group, resource, kind]: readonly [string, string, string],
  ns: string,
  labels: Labels,
): AdmissionRequest {
  const known = compiled.namespaces.get(ns);
  return makeRequest({
    group,
    resource,
    operation: "CREATE",
    namespace: ns,
    kind: { group, kind },
    // A namespace the input does not list is taken to carry only its name label.
    ...(known ? {} : { namespaceObject: { labels: { [NAME_LABEL]: ns } } }),
    object: { metadata: { namespace: ns, labels } },
    userInfo: {
      username: "system:serviceaccount:kube-system:replicaset-controller",
      groups: [
        "system:serviceaccounts",
        "system:serviceaccounts:kube-system",
        "system:authenticated",
      ],
    },
  });
}

/**
 * Would `h` intercept (or possibly intercept) a request the maps build, carrying only metadata
 * (a namespace and labels, no spec)? A matchCondition that reads the object and fails to evaluate
 * on such a request (a webhook's 403 is its matchConditions' failed evaluation; selector errors
 * are 404 or 500) fails for want of what a real object has, so it decides nothing ("maybe"),
 * where on a real object it may well be false and the hook skipped. Shared with lint L2.
 */
export function metadataOnlyVerdict(h: CompiledWebhook, ctx: MatchContext): "yes" | "maybe" | "no" {
  const m = matchWebhook(h, ctx);
  const conditionError =
    (m.kind === "fail" && m.failure.status === 403) ||
    (m.kind === "skip" && m.reason.code === "match-condition-error-ignored");
  if (conditionError && h.conditions.some((c) => c.usesObject)) return "maybe";
  if (m.kind === "call" || m.kind === "fail") return "yes";
  return m.kind === "indeterminate" ? "maybe" : "no";
}

/** Would `h` intercept (or possibly intercept) one of these requests (see metadataOnlyVerdict)? */
function verdictFor(h: CompiledWebhook, contexts: readonly MatchContext[]): "yes" | "maybe" | "no" {
  let verdict: "yes" | "maybe" | "no" = "no";
  for (const ctx of contexts) {
    const v = metadataOnlyVerdict(h, ctx);
    if (v === "yes") return "yes";
    if (v === "maybe") verdict = "maybe";
  }
  return verdict;
}

/** The client config of each webhook, by `hookKey`. */
function clientConfigsByHook(
  snapshot: AdmissionSnapshot,
  compiled: CompiledSnapshot,
): Map<string, AdmissionregistrationV1WebhookClientConfig> {
  const raw = new Map<string, AdmissionregistrationV1WebhookClientConfig>();
  const add = (
    source: string,
    cfgs:
      | ReadonlyArray<{
          metadata?: { name?: string };
          webhooks?: Array<{ clientConfig: AdmissionregistrationV1WebhookClientConfig }>;
        }>
      | undefined,
  ) => {
    for (const cfg of cfgs ?? [])
      (cfg.webhooks ?? []).forEach((w, i) =>
        raw.set(`${source}\u0000${cfg.metadata?.name ?? ""}\u0000${i}`, w.clientConfig),
      );
  };
  add("MutatingWebhookConfiguration", snapshot.mutatingWebhookConfigurations);
  add("ValidatingWebhookConfiguration", snapshot.validatingWebhookConfigurations);
  const out = new Map<string, AdmissionregistrationV1WebhookClientConfig>();
  for (const h of [...compiled.mutating, ...compiled.validating]) {
    const cc = raw.get(`${h.id.source}\u0000${h.id.configuration}\u0000${h.id.position}`);
    if (cc) out.set(h.key, cc);
  }
  return out;
}

/** The backend of each service-backed webhook. */
function backendsOf(input: DependencyInput, compiled: CompiledSnapshot): Backend[] {
  const out: Backend[] = [];
  const configs = clientConfigsByHook(input.snapshot, compiled);
  for (const h of [...compiled.mutating, ...compiled.validating]) {
    const svc = configs.get(h.key)?.service;
    if (!svc) continue;
    const service = input.services?.find(
      (s) => s.metadata?.namespace === svc.namespace && s.metadata?.name === svc.name,
    );
    const selector = service?.spec?.selector;
    let podLabels: Labels[] = [];
    let source: PodLabelSource = "inferred";
    if (selector && Object.keys(selector).length > 0) {
      podLabels = (input.pods ?? [])
        .filter(
          (p) =>
            p.metadata?.namespace === svc.namespace && selectsLabels(selector, p.metadata?.labels),
        )
        .map((p) => p.metadata?.labels ?? {});
      source = "pods";
      if (podLabels.length === 0) {
        podLabels = (input.workloads ?? [])
          .filter(
            (w) =>
              w.metadata?.namespace === svc.namespace &&
              selectsLabels(selector, w.spec?.template?.metadata?.labels),
          )
          .map((w) => w.spec?.template?.metadata?.labels ?? {});
        source = "workloads";
      }
      if (podLabels.length === 0) {
        podLabels = [selector];
        source = "service-selector";
      }
    } else podLabels = [{}];
    // Endpoints the apiserver can call, as health and lint count them (backend-judgement): ready
    // ones on a slice port named like the Service port the hook calls; none when the Service
    // lacks that port; not counted for an ExternalName Service, which has none by design.
    let readyEndpoints: number | undefined;
    if (service && input.endpointSlices && service.spec?.type !== "ExternalName") {
      const slices = input.endpointSlices.filter(
        (slice) =>
          slice.metadata?.namespace === svc.namespace &&
          labelValue(slice.metadata?.labels, "kubernetes.io/service-name") === svc.name,
      );
      readyEndpoints = serviceBackendFacts(service, slices, svc.port ?? 443).readyEndpoints ?? 0;
    }
    out.push({
      hook: h.key,
      namespace: svc.namespace,
      service: svc.name,
      podLabels,
      source,
      serviceFound: input.services ? service !== undefined : undefined,
      readyEndpoints,
    });
  }
  return out;
}

function labelsKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}\u0000${labels[k] ?? ""}`)
    .join("\u0001");
}

/** Strongly connected components (Tarjan), iteratively so deep graphs cannot overflow the stack. */
function stronglyConnected(
  nodes: readonly string[],
  next: ReadonlyMap<string, readonly string[]>,
): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: root, i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1] as { node: string; i: number };
      const succ = next.get(top.node) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++] as string;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.node, Math.min(low.get(top.node) as number, index.get(w) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(top.node) as number));
      if (low.get(top.node) === index.get(top.node)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop() as string;
          onStack.delete(w);
          comp.push(w);
        } while (w !== top.node);
        out.push(comp);
      }
    }
  }
  return out;
}

/** One elementary cycle through `start` inside `members` (breadth-first, so a shortest one). */
function cycleThrough(
  start: string,
  members: ReadonlySet<string>,
  next: ReadonlyMap<string, readonly string[]>,
): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const node = queue[q] as string;
    for (const w of next.get(node) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [node];
        let cur = node;
        while (cur !== start) {
          cur = prev.get(cur) as string;
          path.push(cur);
        }
        return path.reverse();
      }
      if (w !== start && !prev.has(w)) {
        prev.set(w, node);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** Finds cycles among fail-closed hooks: one elementary cycle per strongly connected set. */
export function findCycles(
  nodes: readonly string[],
  edges: ReadonlyArray<{ from: string; to: string }>,
): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    const list = next.get(e.from) ?? [];
    if (!list.includes(e.to)) list.push(e.to);
    next.set(e.from, list);
  }
  const out: string[][] = [];
  for (const comp of stronglyConnected(nodes, next)) {
    if (comp.length < 2) continue;
    const members = new Set(comp);
    const start = nodes.find((n) => members.has(n)) as string;
    out.push(cycleThrough(start, members, next));
  }
  return out;
}

/** Builds the dependency graph. */
export function dependencyGraph(
  input: DependencyInput,
  compiled: CompiledSnapshot,
): DependencyGraph {
  const all = [...compiled.mutating, ...compiled.validating];
  const backends = backendsOf(input, compiled);
  const backendOf = new Map(backends.map((b) => [b.hook, b]));
  // Backends in the same namespace with the same pod labels share their match contexts.
  const contexts = new Map<string, MatchContext[]>();
  const contextsFor = (ns: string, podLabels: readonly Labels[]): MatchContext[] => {
    const key = `${ns}\u0002${podLabels.map(labelsKey).sort().join("\u0003")}`;
    let list = contexts.get(key);
    if (!list) {
      list = [];
      for (const w of WORKLOADS)
        for (const labels of podLabels)
          list.push(createMatchContext(createIn(compiled, w, ns, labels), compiled));
      contexts.set(key, list);
    }
    return list;
  };
  const edges: DependencyEdge[] = [];
  const selfLoops: string[] = [];
  for (const b of backends) {
    const ctxs = contextsFor(b.namespace, b.podLabels);
    for (const a of all) {
      const v = verdictFor(a, ctxs);
      if (v === "no") continue;
      edges.push({ from: a.key, to: b.hook, verdict: v });
      if (a.key === b.hook && a.failurePolicy === "Fail") selfLoops.push(a.key);
    }
  }
  // Critical namespaces: the system ones and any labelled runlevel 0 or 1.
  const critical = new Set(SYSTEM_NAMESPACES);
  for (const [ns, labels] of compiled.namespaces) {
    const rl = labelValue(labels, "runlevel");
    if (rl === "0" || rl === "1") critical.add(ns);
  }
  const criticalCtx = [...critical].map((ns) => ({
    ns,
    ctxs: [
      createMatchContext(
        createIn(compiled, WORKLOADS[0] as [string, string, string], ns, {}),
        compiled,
      ),
    ],
  }));
  const hooks: GraphHook[] = all.map((h) => ({
    key: h.key,
    hook: h,
    failClosed: h.failurePolicy === "Fail",
    backend: backendOf.get(h.key),
    critical: criticalCtx.filter((c) => verdictFor(h, c.ctxs) !== "no").map((c) => c.ns),
  }));
  const failClosed = hooks.filter((h) => h.failClosed).map((h) => h.key);
  const closed = new Set(failClosed);
  const cycles = findCycles(
    failClosed,
    edges.filter((e) => closed.has(e.from) && closed.has(e.to)),
  );
  return { hooks, edges, selfLoops, cycles };
}
