import "server-only";
import { setMaxListeners } from "node:events";
import { mapLimit } from "@/lib/map-limit";
import { servedKinds } from "@/lib/k8s/served-kinds";
import { collectionPath, type ResourceRef } from "@/lib/k8s/resources";
import type { FleetRow, FleetStreamMessage, FoundBy } from "@/lib/api/fleet";
import type { KubeClient } from "@/server/kube/client";
import { watchHub } from "@/server/kube/watch-hub";
import { readCluster, readRow, type ClusterBasis } from "./read";
import type { SnapshotLists } from "@/lib/admission/model/snapshot";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { serverKey, type ListedProfile } from "./profiles";

/** Each cluster's read timeout unless the request names one (PORTCULLIS_FLEET_TIMEOUT_MS). */
export function defaultFleetTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.PORTCULLIS_FLEET_TIMEOUT_MS);
  return Number.isFinite(n) && n >= 200 && n <= 60_000 ? Math.round(n) : 5_000;
}

/** Clusters read at once (PORTCULLIS_FLEET_CONCURRENCY, default 8). */
export function fleetConcurrency(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.PORTCULLIS_FLEET_CONCURRENCY);
  return Number.isInteger(n) && n >= 1 && n <= 64 ? n : 8;
}

/** One cluster to read: a context and how to get a client acting as its identity. */
export interface FleetTarget {
  context: string;
  server: string;
  /** A client for the context's identity; throws when the context cannot make one. */
  client: () => KubeClient;
}

/**
 * Live re-reads: the watch hub's context (the same as the target's in local mode, the
 * dashboard's own in shared mode) and a check run before subscribing (shared mode: the user may
 * list and watch the collections). Undefined: rows are not kept live.
 */
export interface FleetLive {
  hubContext: (context: string) => string;
  authorize?: (refs: ResourceRef[]) => Promise<void>;
}

/** A change is judged again after this long without another change of the same cluster… */
const CHANGE_SETTLE_MS = 30;
/** …and the cluster read again in full after this long. */
const FULL_READ_SETTLE_MS = 1_000;

/** The snapshot list each admission collection fills. */
const LIST_KEYS: Readonly<Record<string, keyof SnapshotLists>> = {
  mutatingwebhookconfigurations: "mutatingWebhookConfigurations",
  validatingwebhookconfigurations: "validatingWebhookConfigurations",
  validatingadmissionpolicies: "validatingAdmissionPolicies",
  validatingadmissionpolicybindings: "validatingAdmissionPolicyBindings",
  mutatingadmissionpolicies: "mutatingAdmissionPolicies",
  mutatingadmissionpolicybindings: "mutatingAdmissionPolicyBindings",
};

/**
 * Reads every target, at most `concurrency` at once, each within `timeoutMs`, and tells each row
 * as it is known: first all of them as reading, then each as its read ends (so a hanging
 * cluster delays only its own row), the clusters the ClusterProfiles list as they are found,
 * then `settled`. With `live`, a cluster whose admission configuration changes is read again
 * and its row sent again, until `signal` aborts. Resolves when the first reads are done.
 */
export async function runFleet(opts: {
  targets: readonly FleetTarget[];
  timeoutMs: number;
  concurrency: number;
  decisionsContext: string | undefined;
  live?: FleetLive;
  signal: AbortSignal;
  send: (m: FleetStreamMessage) => void;
}): Promise<void> {
  const { signal, send } = opts;
  // Every read, timeout and hub lookup of every cluster listens to this one signal.
  setMaxListeners(0, signal);
  const rows = new Map<string, FleetRow>();
  const byServer = new Map<string, string>();
  for (const t of opts.targets) {
    rows.set(t.context, {
      id: t.context,
      context: t.context,
      server: t.server,
      foundBy: [{ via: "kubeconfig", context: t.context }],
      row: { state: "reading" },
    });
    if (!byServer.has(serverKey(t.server))) byServer.set(serverKey(t.server), t.context);
  }
  send({
    type: "fleet",
    rows: [...rows.values()],
    timeoutMs: opts.timeoutMs,
    live: opts.live !== undefined,
  });

  const put = (given: FleetRow) => {
    // The semantics the row assumed: its read's (a failed read assumed none).
    const { assumedSemantics: _, ...rest } = given;
    const row: FleetRow =
      given.row.state === "read"
        ? { ...rest, assumedSemantics: given.row.summary.kubernetes.minor }
        : rest;
    rows.set(row.id, row);
    if (!signal.aborted) send({ type: "row", row });
  };

  /** Adds what a cluster's ClusterProfiles list: to the row of the context that reaches it, else a row of its own. */
  const found = (profiles: readonly ListedProfile[]) => {
    for (const p of profiles) {
      const by: FoundBy = {
        via: "cluster-profile",
        context: p.context,
        namespace: p.namespace,
        name: p.name,
        ...(p.manager ? { manager: p.manager } : {}),
        ...(p.reportedVersion ? { reportedVersion: p.reportedVersion } : {}),
      };
      const same = (f: FoundBy) =>
        f.via === "cluster-profile" &&
        f.context === by.context &&
        f.namespace === by.namespace &&
        f.name === by.name;
      const reached = p.servers.map((s) => byServer.get(serverKey(s))).find((c) => c !== undefined);
      const id =
        reached ??
        `profile:${p.servers[0] ? serverKey(p.servers[0]) : `${p.context}/${p.namespace}/${p.name}`}`;
      const existing = rows.get(id);
      if (existing?.foundBy.some(same)) continue;
      if (existing) {
        put({ ...existing, foundBy: [...existing.foundBy, by] });
        continue;
      }
      put({
        id,
        server: p.servers[0] ?? "",
        foundBy: [by],
        row: {
          state: "no-credentials",
          message:
            p.servers.length === 0
              ? `ClusterProfile ${p.namespace}/${p.name} names no API server (no access provider): the cluster cannot be reached`
              : `no kubeconfig context reaches ${p.servers.join(", ")}: the dashboard has no credentials for this cluster`,
        },
      });
    }
  };

  const unsubscribes: Array<() => void> = [];
  signal.addEventListener("abort", () => unsubscribes.forEach((u) => u()), { once: true });

  const read = async (t: FleetTarget) => {
    let client: KubeClient;
    try {
      client = t.client();
    } catch (e) {
      const base = rows.get(t.context);
      if (base)
        put({
          ...base,
          row: {
            state: "failed",
            ms: 0,
            timedOut: false,
            status: 503,
            reason: "NoClient",
            message: e instanceof Error ? e.message : String(e),
          },
        });
      return;
    }
    const result = await readCluster({
      client,
      context: t.context,
      timeoutMs: opts.timeoutMs,
      decisionsContext: opts.decisionsContext,
      signal,
    });
    const base = rows.get(t.context);
    if (!base || signal.aborted) return;
    put({ ...base, row: result.row });
    found(result.profiles);
    if (opts.live && result.basis) void keepLive(t, client, result.basis);
  };

  /**
   * Subscribes to the cluster's admission collections. On a change the row is first judged again
   * from the objects the watch hub now holds with the rest of the last read (namespaces,
   * backends, discovery: no request), then read again in full once the changes settle.
   */
  const keepLive = async (t: FleetTarget, client: KubeClient, first: ClusterBasis) => {
    const live = opts.live;
    if (!live) return;
    let basis = first;
    const refs = servedKinds(basis.apis)
      .map((k) => k.readAt)
      .filter((r): r is ResourceRef => r !== undefined);
    try {
      await live.authorize?.(refs);
    } catch {
      return;
    }
    if (signal.aborted) return;
    const hubContext = live.hubContext(t.context);
    let quickTimer: NodeJS.Timeout | undefined;
    let fullTimer: NodeJS.Timeout | undefined;
    let reading = false;
    let again = false;
    const quick = async () => {
      const started = performance.now();
      const lists: Partial<Record<keyof SnapshotLists, unknown[]>> = {};
      try {
        await Promise.all(
          refs.map(async (ref) => {
            const key = LIST_KEYS[ref.resource];
            if (!key || ref.group !== ADMISSION_GROUP) return;
            lists[key] = (await watchHub().current(hubContext, collectionPath(ref), signal)).items;
          }),
        );
      } catch {
        return;
      }
      const base = rows.get(t.context);
      if (!base || signal.aborted) return;
      put({
        ...base,
        row: readRow(
          basis,
          lists as Partial<SnapshotLists>,
          Math.round(performance.now() - started),
        ),
      });
    };
    const full = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        const result = await readCluster({
          client,
          context: t.context,
          timeoutMs: opts.timeoutMs,
          decisionsContext: opts.decisionsContext,
          signal,
        });
        if (result.basis) basis = result.basis;
        const base = rows.get(t.context);
        if (base && !signal.aborted) {
          put({ ...base, row: result.row });
          found(result.profiles);
        }
      } finally {
        reading = false;
        if (again && !signal.aborted) {
          again = false;
          changed();
        }
      }
    };
    const changed = () => {
      clearTimeout(quickTimer);
      clearTimeout(fullTimer);
      quickTimer = setTimeout(() => void quick(), CHANGE_SETTLE_MS);
      fullTimer = setTimeout(() => void full(), FULL_READ_SETTLE_MS);
    };
    unsubscribes.push(() => {
      clearTimeout(quickTimer);
      clearTimeout(fullTimer);
    });
    for (const ref of refs) {
      // A snapshot the hub already holds is told inside subscribe(): that is what was just read.
      // One told later comes from a list made after the read (or a relist): it may be newer.
      let subscribing = true;
      try {
        unsubscribes.push(
          watchHub().subscribe(hubContext, collectionPath(ref), (e) => {
            if (e.type === "ERROR" || (e.type === "SYNC" && subscribing)) return;
            changed();
          }),
        );
      } catch {
        // Too many upstream watches for the context: the row stays as read.
      }
      subscribing = false;
    }
  };

  await mapLimit(opts.targets, opts.concurrency, read);
  if (!signal.aborted) send({ type: "settled" });
}
