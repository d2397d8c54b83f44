import "server-only";
import { setMaxListeners } from "node:events";
import {
  engineOfGroup,
  parseEngineObjects,
  sourceKindOf,
  type EngineSources,
} from "@/lib/admission/engines/sources";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { DecisionTally } from "@/lib/decisions/tally";
import type { EnginesData } from "@/lib/api/engines";
import { buildEnginesReport, decisionCounts, type ServedEngineKind } from "@/lib/engines/report";
import { KubeApiError } from "@/lib/k8s/errors";
import type { KubeClient } from "@/server/kube/client";
import { readAdmissionObjects, readNamespaces } from "@/server/kube/admission-state";
import { recogniseOwnership } from "@/lib/admission/engines/ownership";
import { engineFindings } from "@/lib/engines/lint";
import { isSharedMode } from "@/server/kube/config";
import { watchHub, type KubeObject } from "@/server/kube/watch-hub";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";

interface ApiGroupList {
  groups?: Array<{
    name: string;
    versions?: Array<{ version: string }>;
    preferredVersion?: { version: string };
  }>;
}

interface ApiResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean }>;
}

/**
 * The engines' policy kinds this cluster serves, read from discovery: each at the first version
 * lib/admission/engines knows that serves it, else at the group's preferred version (its objects
 * are then shown as unrecognised). A cluster without engines serves none: nothing is listed.
 */
async function discoverEngineKinds(
  client: KubeClient,
  notices: string[],
  signal?: AbortSignal,
): Promise<ServedEngineKind[]> {
  const groups = await client.request<ApiGroupList>({ path: "/apis", signal });
  const out: ServedEngineKind[] = [];
  await Promise.all(
    (groups.groups ?? []).map(async (g) => {
      const engine = engineOfGroup(g.name);
      if (!engine) return;
      const byKind = new Map<
        string,
        Array<{ version: string; resource: string; namespaced: boolean }>
      >();
      await Promise.all(
        (g.versions ?? []).map(async ({ version }) => {
          let list: ApiResourceList;
          try {
            list = await client.request<ApiResourceList>({
              path: `/apis/${g.name}/${version}`,
              signal,
            });
          } catch (e) {
            if (signal?.aborted) throw e;
            notices.push(
              `discovery of /apis/${g.name}/${version} failed (${messageOf(e)}): its kinds are not shown`,
            );
            return;
          }
          for (const r of list.resources ?? []) {
            if (r.name.includes("/")) continue;
            const known = sourceKindOf(g.name, r.kind);
            if (!known) continue;
            const at = byKind.get(r.kind) ?? [];
            at.push({ version, resource: r.name, namespaced: r.namespaced });
            byKind.set(r.kind, at);
          }
        }),
      );
      for (const [kind, served] of byKind) {
        const known = sourceKindOf(g.name, kind)?.versions ?? [];
        const pick =
          known.map((v) => served.find((s) => s.version === v)).find((s) => s !== undefined) ??
          served.find((s) => s.version === g.preferredVersion?.version) ??
          served[0];
        if (pick) out.push({ engine, group: g.name, kind, ...pick });
      }
    }),
  );
  return out.sort((a, b) => `${a.group}/${a.kind}`.localeCompare(`${b.group}/${b.kind}`));
}

function messageOf(e: unknown): string {
  return e instanceof KubeApiError
    ? `${e.status} ${e.reason}`
    : e instanceof Error
      ? e.message
      : String(e);
}

/**
 * One collection's objects: in local mode from the watch hub (one shared list+watch per
 * collection, as every other read of the dashboard), in shared mode listed as the request's
 * identity (the hub holds the service account's view). Items get their apiVersion and kind.
 */
async function listObjects(
  client: KubeClient,
  context: string,
  k: ServedEngineKind,
  signal?: AbortSignal,
): Promise<KubeObject[]> {
  const path = `/apis/${k.group}/${k.version}/${k.resource}`;
  let items: KubeObject[];
  if (!isSharedMode()) {
    items = (await watchHub().current(context, path, signal)).items;
  } else {
    items = (await client.request<{ items?: KubeObject[] }>({ path, signal })).items ?? [];
  }
  const apiVersion = `${k.group}/${k.version}`;
  return items.map((o) => ({
    ...o,
    apiVersion: o.apiVersion ?? apiVersion,
    kind: o.kind ?? k.kind,
  }));
}

/** The engines' policies of the served kinds; a kind the identity may not list is a notice. */
async function readEngineSources(
  client: KubeClient,
  context: string,
  kinds: readonly ServedEngineKind[],
  notices: string[],
  signal?: AbortSignal,
): Promise<EngineSources> {
  const lists = await Promise.all(
    kinds.map(async (k) => {
      try {
        return await listObjects(client, context, k, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        notices.push(
          `cannot list ${k.resource}.${k.group}/${k.version} (${messageOf(e)}): its ${k.kind} objects are not shown`,
        );
        return [];
      }
    }),
  );
  return parseEngineObjects(lists.flat());
}

/**
 * The engines' policies as the request's identity may read them: the kinds discovery serves and
 * their objects. A cluster without engines serves none (nothing is read, `served` is empty); a
 * kind the identity may not list, or discovery failing, is a notice. What the lint and Predict
 * read beside the admission objects.
 */
export async function readEnginePolicies(opts: {
  client: KubeClient;
  context: string;
  notices: string[];
  signal?: AbortSignal;
}): Promise<{ served: ServedEngineKind[]; sources: EngineSources }> {
  const { client, context, notices, signal } = opts;
  let served: ServedEngineKind[];
  try {
    served = await discoverEngineKinds(client, notices, signal);
  } catch (e) {
    // What reads them beside the admission objects goes on without the engines.
    if (signal?.aborted) throw e;
    notices.push(`the policy engines' kinds could not be discovered (${messageOf(e)})`);
    served = [];
  }
  if (served.length === 0) return { served, sources: { policies: [], unrecognised: [] } };
  return { served, sources: await readEngineSources(client, context, served, notices, signal) };
}

/**
 * Everything the Engines page shows, read as the request's identity: discovery of the engines'
 * groups, their policies, the admission objects, and (when given) the decisions tally.
 */
export async function readEngines(opts: {
  client: KubeClient;
  context: string;
  signal?: AbortSignal;
  tallies?: () => Promise<readonly DecisionTally[]>;
}): Promise<EnginesData> {
  const { client, context, signal } = opts;
  if (signal) setMaxListeners(64, signal);
  const notices: string[] = [];
  const [served, discovery] = await Promise.all([
    discoverEngineKinds(client, notices, signal),
    admissionDiscovery(client, signal),
  ]);
  const [sources, lists, namespaces, tallies] = await Promise.all([
    readEngineSources(client, context, served, notices, signal),
    readAdmissionObjects(client, discovery, notices, signal),
    readNamespaces(client, signal).catch((e: unknown) => {
      if (signal?.aborted) throw e;
      notices.push(`namespaces could not be read (${messageOf(e)}): L24 assumes their name labels`);
      return {};
    }),
    opts.tallies
      ? opts.tallies().catch((e: unknown) => {
          notices.push(`decisions are not counted (${messageOf(e)})`);
          return undefined;
        })
      : Promise.resolve(undefined),
  ]);
  const snapshot: AdmissionSnapshot = { ...lists, namespaces: {}, discovery };
  const ownership = recogniseOwnership(lists, sources);
  const findings = engineFindings(lists, sources, ownership, namespaces);
  return {
    readAt: new Date().toISOString(),
    engines: buildEnginesReport(
      lists,
      served,
      sources,
      tallies ? decisionCounts(tallies) : undefined,
      ownership,
      snapshot,
    ).map((r) => ({ ...r, findings: findings[r.engine] ?? [] })),
    notices,
  };
}

/** The admission kinds' discovery (admissionregistration.k8s.io only: all the page lists). */
async function admissionDiscovery(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<DiscoveryResource[]> {
  const group = "admissionregistration.k8s.io";
  const g = await client.request<{ versions?: Array<{ version: string }> }>({
    path: `/apis/${group}`,
    signal,
  });
  const out: DiscoveryResource[] = [];
  await Promise.all(
    (g.versions ?? []).map(async ({ version }) => {
      const list = await client.request<
        ApiResourceList & { resources?: Array<{ verbs?: string[] }> }
      >({
        path: `/apis/${group}/${version}`,
        signal,
      });
      for (const r of list.resources ?? [])
        if (!r.name.includes("/"))
          out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced });
    }),
  );
  return out;
}
