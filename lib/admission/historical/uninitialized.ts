/**
 * Uninitialized objects (Kubernetes 1.7–1.13), pure: which collections to list with
 * `?includeUninitialized=true` from the InitializerConfigurations, and which listed objects still
 * wait — on whom, for how long, and which ones are stuck. Reference §6.1: an object keeps
 * `metadata.initializers.pending` until each initializer, strictly in order, removes its own name;
 * only the head of the list acts, so a controller that is down blocks every new object it covers.
 */
import { compileRule, ruleMatches } from "../model/rule-matcher";
import { initializerOrder } from "./initializers";
import type { DiscoveryResource, InitializerConfiguration } from "../model/snapshot";

/** A collection the initializers cover, with the initializers that cover it, in merged order. */
export interface CoveredCollection {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly initializers: readonly string[];
}

/**
 * Every served resource (no subresources) some initializer's rule matches on CREATE, once per
 * stored resource (the first served version discovery lists), with the initializers that put
 * their name on its new objects.
 */
export function coveredCollections(
  configs: readonly InitializerConfiguration[],
  discovery: readonly DiscoveryResource[],
): CoveredCollection[] {
  const order = initializerOrder(configs).map((e) => ({
    name: e.name,
    rules: e.rules.map((r, i) => compileRule({ ...r, operations: ["CREATE"] }, i)),
  }));
  const out = new Map<string, CoveredCollection>();
  for (const d of discovery) {
    const key = d.equivalenceKey ?? `${d.group}/${d.resource}`;
    if (out.has(key)) continue;
    const attrs = {
      operation: "CREATE",
      group: d.group,
      version: d.version,
      resource: d.resource,
      subresource: "",
      namespace: "",
      name: "",
    };
    const names = order
      .filter((e) => e.rules.some((r) => ruleMatches(r, attrs)))
      .map((e) => e.name);
    if (names.length === 0) continue;
    out.set(key, {
      group: d.group,
      version: d.version,
      resource: d.resource,
      namespaced: d.namespaced,
      initializers: names,
    });
  }
  return [...out.values()];
}

/** An object read with `?includeUninitialized=true`, as far as this analysis reads it. */
export interface ListedObject {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly creationTimestamp?: string;
    readonly initializers?: {
      readonly pending?: ReadonlyArray<{ readonly name?: string }> | null;
      readonly result?: { readonly status?: string; readonly message?: string } | null;
    } | null;
  };
}

/** One object still waiting for its initializers. */
export interface UninitializedObject {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly createdAt: string;
  /** Seconds since creation at `now` (0 when the timestamp is missing or in the future). */
  readonly ageSeconds: number;
  /** The whole pending list, in order. */
  readonly pending: readonly string[];
  /** The head of the list: the one initializer that can act. */
  readonly waitingOn: string;
  /** Older than the threshold. */
  readonly stuck: boolean;
}

/** The objects of one collection that still carry pending initializers. */
export function pendingObjects(
  ref: { group: string; version: string; resource: string },
  items: readonly ListedObject[],
  now: number,
  stuckAfterSeconds: number,
): UninitializedObject[] {
  const out: UninitializedObject[] = [];
  for (const o of items) {
    const pending = (o.metadata?.initializers?.pending ?? [])
      .map((p) => (typeof p?.name === "string" ? p.name : ""))
      .filter((n) => n !== "");
    if (pending.length === 0) continue;
    const createdAt = o.metadata?.creationTimestamp ?? "";
    const t = Date.parse(createdAt);
    const ageSeconds = Number.isFinite(t) ? Math.max(0, Math.floor((now - t) / 1000)) : 0;
    out.push({
      ...ref,
      namespace: o.metadata?.namespace ?? "",
      name: o.metadata?.name ?? "",
      createdAt,
      ageSeconds,
      pending,
      waitingOn: pending[0] as string,
      stuck: ageSeconds > stuckAfterSeconds,
    });
  }
  return out;
}

/** The stuck objects of one initializer: it is at the head of their lists and does not act. */
interface StuckGroup {
  readonly initializer: string;
  readonly count: number;
  readonly oldestAgeSeconds: number;
  /** What it covers (from the configurations): every new object of these waits on it too. */
  readonly covers: readonly string[];
  readonly objects: readonly UninitializedObject[];
}

/** The analysis the page shows. */
export interface UninitializedReport {
  /** Every waiting object, oldest first. */
  readonly objects: readonly UninitializedObject[];
  /** Stuck objects grouped by the initializer that blocks them, most objects first. */
  readonly stuck: readonly StuckGroup[];
}

/** Sorts the waiting objects and groups the stuck ones by the initializer at their head. */
export function analyzeUninitialized(
  objects: readonly UninitializedObject[],
  covered: readonly CoveredCollection[],
): UninitializedReport {
  const sorted = [...objects].sort(
    (a, b) => b.ageSeconds - a.ageSeconds || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const groups = new Map<string, UninitializedObject[]>();
  for (const o of sorted) {
    if (!o.stuck) continue;
    const g = groups.get(o.waitingOn);
    if (g) g.push(o);
    else groups.set(o.waitingOn, [o]);
  }
  const stuck = [...groups.entries()]
    .map(([initializer, objs]) => ({
      initializer,
      count: objs.length,
      oldestAgeSeconds: objs[0]?.ageSeconds ?? 0,
      covers: covered
        .filter((c) => c.initializers.includes(initializer))
        .map((c) => (c.group === "" ? c.resource : `${c.resource}.${c.group}`)),
      objects: objs,
    }))
    .sort((a, b) => b.count - a.count || b.oldestAgeSeconds - a.oldestAgeSeconds);
  return { objects: sorted, stuck };
}

/**
 * The default threshold past which a waiting object counts as stuck: the dynamic admission
 * control design's global initializer timeout ("e.g., 10 mins"), after which its read repair
 * would have dropped the head initializer.
 */
export const DEFAULT_STUCK_AFTER_SECONDS = 600;
