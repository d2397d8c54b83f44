import "server-only";
import { setMaxListeners } from "node:events";
import type { KubeClient } from "@/server/kube/client";
import { KubeApiError } from "@/lib/k8s/errors";
import { admissionApis, serverVersion } from "@/server/kube/discovery";
import {
  readAdmissionObjects,
  readBackendState,
  readNamespaces,
  type BackendState,
} from "@/server/kube/admission-state";
import type { DiscoveryResource, SnapshotLists } from "@/lib/admission/model/snapshot";
import type { Labels } from "@/lib/admission/model/selectors";
import type { EngineSources } from "@/lib/admission/engines/sources";
import type { ServedVersion, ServerVersion } from "@/lib/api/overview";
import { fleetDiscovery } from "./discovery";
import { readEnginePolicies } from "@/server/engines/read";
import { canIPath } from "@/server/kube/access";
import { DECISIONS_URL } from "@/server/audit/access";
import { decisionStore } from "@/server/decisions/instance";
import { sharedTally } from "@/server/decisions/tally";
import { summarizeCluster } from "@/lib/admission/fleet/summary";
import type { FleetDecisions, FleetRowState } from "@/lib/api/fleet";
import { readClusterProfiles, type ListedProfile } from "./profiles";

/** The window the fleet counts decisions over. */
const DECISIONS_WINDOW_MS = 60 * 60_000;

/** Everything of a read besides the admission objects: what a change of them is judged with. */
export interface ClusterBasis {
  version: ServerVersion;
  apis: ServedVersion[];
  discovery: DiscoveryResource[];
  namespaces: Record<string, Labels>;
  engines?: EngineSources;
  backends: BackendState;
  decisions: FleetDecisions;
  notices: string[];
}

type ReadRow = Extract<FleetRowState, { state: "read" }>;

/** A finished read: the row's state, the ClusterProfiles the cluster lists, and its basis. */
export interface ClusterRead {
  row: Exclude<FleetRowState, { state: "reading" | "no-credentials" }>;
  profiles: ListedProfile[];
  basis?: ClusterBasis;
}

/** A read row from its basis and the admission objects (as read, or as the watch hub holds them now). */
export function readRow(basis: ClusterBasis, objects: Partial<SnapshotLists>, ms: number): ReadRow {
  const { backends } = basis;
  const { summary, comparables } = summarizeCluster({
    snapshot: { ...objects, namespaces: basis.namespaces, discovery: basis.discovery },
    ...(backends.services ? { services: backends.services } : {}),
    ...(backends.endpointSlices ? { endpointSlices: backends.endpointSlices } : {}),
    ...(backends.pods ? { pods: backends.pods } : {}),
    ...(backends.workloads ? { workloads: backends.workloads } : {}),
    ...(backends.serverMinor !== undefined ? { serverMinor: backends.serverMinor } : {}),
    version: basis.version,
    ...(basis.engines ? { engines: basis.engines } : {}),
    now: new Date(),
  });
  return {
    state: "read",
    ms,
    version: basis.version,
    apis: basis.apis,
    summary,
    comparables,
    decisions: basis.decisions,
    notices: basis.notices,
  };
}

function messageOf(e: unknown): string {
  if (e instanceof KubeApiError) return `${e.status} ${e.reason}`;
  return e instanceof Error ? e.message : String(e);
}

/**
 * The last hour's denials, errors and fail-opens, when the decision store holds this cluster's
 * decisions (`decisionsContext` names the context whose apiserver posts its audit events here)
 * and the identity may read them.
 */
async function decisionsOf(
  client: KubeClient,
  context: string,
  decisionsContext: string | undefined,
  signal: AbortSignal,
): Promise<FleetDecisions> {
  if (decisionsContext === undefined)
    return {
      state: "none",
      why: "no cluster's decisions are attributed to a context: set PORTCULLIS_DECISIONS_CONTEXT to the context whose apiserver sends its audit events to this dashboard",
    };
  if (context !== decisionsContext)
    return {
      state: "none",
      why: `the decision store holds the decisions of ${decisionsContext} only`,
    };
  try {
    if (!(await canIPath(client, { path: DECISIONS_URL, verb: "get" }, signal)))
      return {
        state: "none",
        why: `this identity may not read admission decisions (get ${DECISIONS_URL})`,
      };
    const now = Date.now();
    const tally = await sharedTally(await decisionStore(), {
      outcome: [],
      from: now - DECISIONS_WINDOW_MS,
      to: now,
    });
    let denials = 0;
    let errors = 0;
    let failOpens = 0;
    for (const t of tally.tallies) {
      if (t.outcome === "denied" || t.outcome === "rejected") denials += t.count;
      else if (t.outcome === "error" || t.outcome === "timeout") errors += t.count;
      else if (t.outcome === "failed-open") failOpens += t.count;
    }
    return { state: "counted", denials, errors, failOpens, windowMs: tally.to - tally.from };
  } catch (e) {
    if (signal.aborted) throw e;
    return { state: "none", why: `the decisions could not be counted (${messageOf(e)})` };
  }
}

/** Everything the fleet shows of one cluster, read as `client`'s identity. */
async function readAll(
  client: KubeClient,
  context: string,
  decisionsContext: string | undefined,
  signal: AbortSignal,
): Promise<ClusterRead> {
  const started = performance.now();
  const notices: string[] = [];
  const [version, apis, discovery, namespaces, engines, profiles] = await Promise.all([
    serverVersion(client, signal),
    admissionApis(client, signal),
    fleetDiscovery(client, notices, signal),
    readNamespaces(client, signal).catch((e: unknown) => {
      if (signal.aborted) throw e;
      notices.push(
        `namespaces could not be read (${messageOf(e)}): the critical namespaces are unknown`,
      );
      return {};
    }),
    readEnginePolicies({ client, context, notices, signal }),
    readClusterProfiles(client, context, notices, signal),
  ]);
  const objects = await readAdmissionObjects(client, discovery, notices, signal);
  const [backends, decisions] = await Promise.all([
    readBackendState(
      client,
      [...objects.mutatingWebhookConfigurations, ...objects.validatingWebhookConfigurations],
      notices,
      signal,
    ),
    decisionsOf(client, context, decisionsContext, signal),
  ]);
  const basis: ClusterBasis = {
    version,
    apis,
    discovery,
    namespaces,
    ...(engines.served.length > 0 ? { engines: engines.sources } : {}),
    backends,
    decisions,
    notices,
  };
  return {
    row: readRow(basis, objects, Math.round(performance.now() - started)),
    basis,
    profiles,
  };
}

/**
 * Reads one cluster within `timeoutMs`. Never throws: an unreachable, refusing or hanging
 * cluster is a failed row that says which error, after how long (a hang: the timeout).
 */
export async function readCluster(opts: {
  client: KubeClient;
  context: string;
  timeoutMs: number;
  decisionsContext: string | undefined;
  signal: AbortSignal;
}): Promise<ClusterRead> {
  const started = performance.now();
  const timeout = new AbortController();
  const signal = AbortSignal.any([opts.signal, timeout.signal]);
  // Discovery, the lists and the backends share this signal: far more than ten listeners.
  setMaxListeners(256, signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      timeout.abort();
      resolve("timeout");
    }, opts.timeoutMs);
  });
  const elapsed = () => Math.round(performance.now() - started);
  try {
    // The race, besides the abort: a credential plugin or a socket that ignores the signal
    // must not hold the row either.
    const done = await Promise.race([
      readAll(opts.client, opts.context, opts.decisionsContext, signal),
      timedOut,
    ]);
    if (done !== "timeout") return done;
    return { row: timedOutRow(elapsed(), opts.client.server, opts.timeoutMs), profiles: [] };
  } catch (e) {
    if (timeout.signal.aborted)
      return { row: timedOutRow(elapsed(), opts.client.server, opts.timeoutMs), profiles: [] };
    const k = e instanceof KubeApiError ? e : undefined;
    return {
      row: {
        state: "failed",
        ms: elapsed(),
        timedOut: false,
        status: k?.status ?? 500,
        reason: k?.reason ?? "InternalError",
        message: k?.message ?? (e instanceof Error ? e.message : String(e)),
      },
      profiles: [],
    };
  } finally {
    clearTimeout(timer);
  }
}

function timedOutRow(ms: number, server: string, timeoutMs: number): ClusterRead["row"] {
  return {
    state: "failed",
    ms,
    timedOut: true,
    status: 504,
    reason: "Timeout",
    message: `the apiserver at ${server} did not answer within ${timeoutMs} ms`,
  };
}
