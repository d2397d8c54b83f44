/**
 * The deadlock map as drawable nodes and edges (pure): hook → its backend (namespace/service) →
 * the hooks that intercept the creation of that backend's pods. Only hooks that take part (a
 * service backend, an edge, or critical coverage) are drawn.
 */
import type { DependencyGraph, GraphHook } from "@/lib/admission/lint/deadlock";

/** A node to draw. */
export interface MapNode {
  readonly id: string;
  readonly kind: "hook" | "backend";
  readonly label: string;
  readonly sublabel: string;
  /** Why it is highlighted (empty: not highlighted). */
  readonly alarms: readonly string[];
  readonly failClosed: boolean;
}

/** An edge to draw. */
export interface MapEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: "serves" | "intercepts";
  /** On a fail-closed self-loop or cycle. */
  readonly deadlock: boolean;
  readonly maybe: boolean;
}

const backendId = (ns: string, svc: string) => `backend:${ns}/${svc}`;

/** Builds the drawable map. */
export function deadlockMap(graph: DependencyGraph): { nodes: MapNode[]; edges: MapEdge[] } {
  const inCycle = new Map<string, number>();
  graph.cycles.forEach((c, i) => c.forEach((k) => inCycle.set(k, i)));
  const self = new Set(graph.selfLoops);
  const byKey = new Map(graph.hooks.map((h) => [h.key, h]));
  // An edge A → B lies on a cycle when both are in the same cycle and B follows A in it.
  const onCycle = (from: string, to: string) =>
    graph.cycles.some((c) => c.some((k, i) => k === from && c[(i + 1) % c.length] === to));
  const involved = new Set<string>();
  for (const h of graph.hooks) if (h.backend || h.critical.length > 0) involved.add(h.key);
  for (const e of graph.edges) involved.add(e.from);
  const nodes: MapNode[] = [];
  const edges: MapEdge[] = [];
  const backends = new Map<string, MapNode>();
  for (const key of involved) {
    const h = byKey.get(key) as GraphHook;
    const alarms: string[] = [];
    if (self.has(key)) alarms.push("fail-closed and intercepts its own backend");
    if (inCycle.has(key))
      alarms.push(`in a cycle of fail-closed hooks (#${(inCycle.get(key) ?? 0) + 1})`);
    if (h.failClosed && h.critical.length > 0)
      alarms.push(`fail-closed on pods in ${h.critical.join(", ")}`);
    nodes.push({
      id: key,
      kind: "hook",
      label: h.hook.id.name,
      sublabel: `${h.hook.id.configuration} · ${h.hook.failurePolicy}`,
      alarms,
      failClosed: h.failClosed,
    });
    const b = h.backend;
    if (!b) continue;
    const id = backendId(b.namespace, b.service);
    if (!backends.has(id)) {
      const bAlarms: string[] = [];
      if (b.serviceFound === false) bAlarms.push("Service not found");
      else if (b.readyEndpoints === 0) bAlarms.push("no ready endpoints");
      const node: MapNode = {
        id,
        kind: "backend",
        label: `${b.namespace}/${b.service}`,
        sublabel:
          b.readyEndpoints === undefined
            ? b.source === "inferred"
              ? "pods inferred from the Service's namespace"
              : "endpoints unknown"
            : `${b.readyEndpoints} ready endpoints`,
        alarms: bAlarms,
        failClosed: false,
      };
      backends.set(id, node);
      nodes.push(node);
    }
    edges.push({
      from: key,
      to: id,
      kind: "serves",
      deadlock: self.has(key) || inCycle.has(key),
      maybe: false,
    });
  }
  for (const e of graph.edges) {
    const b = byKey.get(e.to)?.backend;
    if (!b) continue;
    const from = byKey.get(e.from);
    edges.push({
      from: backendId(b.namespace, b.service),
      to: e.from,
      kind: "intercepts",
      deadlock:
        (from?.failClosed ?? false) &&
        ((e.from === e.to && self.has(e.from)) || onCycle(e.from, e.to)),
      maybe: e.verdict === "maybe",
    });
  }
  return { nodes, edges };
}
