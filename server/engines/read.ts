import "server-only";
import { setMaxListeners } from "node:events";
import {
  engineOfGroup,
  parseEngineObjects,
  sourceKindOf,
  type EngineSources,
} from "@/lib/admission/engines/sources";
import { recogniseOwnership, type EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import { joinEngines } from "@/lib/admission/engines/joins";
import { ENGINE_NAMES, sourceKey, type EngineName } from "@/lib/admission/engines/types";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { effectiveOrder } from "@/lib/admission/prediction/order";
import { OUTCOME_TONES } from "@/lib/decisions/outcomes";
import type { DecisionTally } from "@/lib/decisions/tally";
import type {
  EngineDecisionCounts,
  EngineHookRow,
  EnginePolicyRow,
  EngineReport,
  EnginesData,
} from "@/lib/api/engines";
import { KubeApiError } from "@/lib/k8s/errors";
import type { KubeClient } from "@/server/kube/client";
import { readAdmissionObjects } from "@/server/kube/admission-state";
import { isSharedMode } from "@/server/kube/config";
import { watchHub, type KubeObject } from "@/server/kube/watch-hub";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";

/** One engine kind as discovery serves it, at the version it is read in. */
export interface ServedEngineKind {
  engine: EngineName;
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
}

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
export async function discoverEngineKinds(
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
export async function readEngineSources(
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

/** Decisions by (kind, name) over the tally window. */
export type DecisionCounts = ReadonlyMap<string, EngineDecisionCounts>;

/** The tally's counts keyed as hooks and policies are looked up here. */
export function decisionCounts(tallies: readonly DecisionTally[]): DecisionCounts {
  const out = new Map<string, EngineDecisionCounts>();
  for (const t of tallies) {
    const key = `${t.kind.endsWith("policy") ? "policy" : "hook"}\u0000${t.hook}`;
    const c = out.get(key) ?? { total: 0, refused: 0, failures: 0 };
    c.total += t.count;
    const tone = OUTCOME_TONES[t.outcome];
    if (tone === "refused") c.refused += t.count;
    if (tone === "alarm") c.failures += t.count;
    out.set(key, c);
  }
  return out;
}

type Lists = Pick<
  AdmissionSnapshot,
  | "validatingWebhookConfigurations"
  | "mutatingWebhookConfigurations"
  | "validatingAdmissionPolicies"
  | "validatingAdmissionPolicyBindings"
  | "mutatingAdmissionPolicies"
  | "mutatingAdmissionPolicyBindings"
>;

interface HookShape {
  name?: string;
  failurePolicy?: string;
  timeoutSeconds?: number;
}

/**
 * Joins what was read into one report per engine: the engine's sources, the hooks and policies it
 * owns (with their call-order place and the decisions attributed to them). Pure apart from its
 * inputs, so the bench and the tests run it on built worlds.
 */
export function buildEnginesReport(
  lists: Lists,
  served: readonly ServedEngineKind[],
  sources: EngineSources,
  decisions: DecisionCounts | undefined,
  ownership: EngineOwnershipIndex = recogniseOwnership(lists, sources),
  snapshot?: AdmissionSnapshot,
): EngineReport[] {
  const places = new Map<string, NonNullable<EngineHookRow["order"]>>();
  if (snapshot) {
    const ordered = effectiveOrder(compileSnapshot(snapshot));
    const ofStage = new Map<string, number>();
    for (const o of ordered) ofStage.set(o.stage, (ofStage.get(o.stage) ?? 0) + 1);
    for (const o of ordered)
      places.set(`${o.hook.source}\u0000${o.hook.configuration}\u0000${o.hook.position}`, {
        stage: o.stage,
        position: o.index + 1,
        of: ofStage.get(o.stage) ?? 0,
      });
  }
  const hooksOf = new Map<string, HookShape[]>();
  for (const c of lists.validatingWebhookConfigurations ?? [])
    hooksOf.set(
      `ValidatingWebhookConfiguration\u0000${c.metadata?.name ?? ""}`,
      (c.webhooks ?? []) as HookShape[],
    );
  for (const c of lists.mutatingWebhookConfigurations ?? [])
    hooksOf.set(
      `MutatingWebhookConfiguration\u0000${c.metadata?.name ?? ""}`,
      (c.webhooks ?? []) as HookShape[],
    );
  const bindingPolicy = new Map<string, string>();
  for (const b of lists.validatingAdmissionPolicyBindings ?? [])
    bindingPolicy.set(
      `ValidatingAdmissionPolicyBinding\u0000${b.metadata?.name ?? ""}`,
      b.spec?.policyName ?? "",
    );
  for (const b of lists.mutatingAdmissionPolicyBindings ?? [])
    bindingPolicy.set(
      `MutatingAdmissionPolicyBinding\u0000${b.metadata?.name ?? ""}`,
      b.spec?.policyName ?? "",
    );

  const reports = new Map<EngineName, EngineReport>();
  const reportOf = (engine: EngineName): EngineReport => {
    let r = reports.get(engine);
    if (!r) {
      r = { engine, served: [], sources: [], unrecognised: [], hooks: [], policies: [] };
      reports.set(engine, r);
    }
    return r;
  };
  for (const k of served) reportOf(k.engine).served.push(`${k.kind} ${k.group}/${k.version}`);
  const joins = joinEngines(ownership, sources);
  for (const link of Object.values(joins.bySource)) reportOf(link.source.engine).sources.push(link);
  for (const u of sources.unrecognised) reportOf(u.engine).unrecognised.push(u);
  for (const o of Object.values(ownership.objects)) {
    const r = reportOf(o.ownership.engine);
    if (o.kind === "ValidatingWebhookConfiguration" || o.kind === "MutatingWebhookConfiguration") {
      if (o.position === undefined) continue;
      const hook = hooksOf.get(`${o.kind}\u0000${o.name}`)?.[o.position];
      const name = o.hook ?? hook?.name ?? "";
      const place = places.get(`${o.kind}\u0000${o.name}\u0000${o.position}`);
      const d = decisions?.get(`hook\u0000${name}`);
      r.hooks.push({
        source: o.kind,
        configuration: o.name,
        hook: name,
        index: o.position,
        failurePolicy: hook?.failurePolicy === "Ignore" ? "Ignore" : "Fail",
        timeoutSeconds: hook?.timeoutSeconds ?? 10,
        ...(place ? { order: place } : {}),
        ownership: o.ownership,
        ...(d ? { decisions: d } : {}),
      });
    } else {
      const policyName = bindingPolicy.get(`${o.kind}\u0000${o.name}`);
      const d = decisions?.get(`policy\u0000${policyName ?? o.name}`);
      const row: EnginePolicyRow = {
        kind: o.kind,
        name: o.name,
        ...(policyName !== undefined ? { policyName } : {}),
        ownership: o.ownership,
        ...(d && policyName === undefined ? { decisions: d } : {}),
      };
      r.policies.push(row);
    }
  }
  for (const r of reports.values()) {
    r.sources.sort((a, b) => sourceKey(a.source).localeCompare(sourceKey(b.source)));
    r.hooks.sort((a, b) =>
      `${a.configuration}\u0000${a.index}`.localeCompare(`${b.configuration}\u0000${b.index}`),
    );
    r.policies.sort((a, b) => `${a.kind}\u0000${a.name}`.localeCompare(`${b.kind}\u0000${b.name}`));
  }
  return ENGINE_NAMES.flatMap((e) => {
    const r = reports.get(e);
    return r ? [r] : [];
  });
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
  const [sources, lists, tallies] = await Promise.all([
    readEngineSources(client, context, served, notices, signal),
    readAdmissionObjects(client, discovery, notices, signal),
    opts.tallies
      ? opts.tallies().catch((e: unknown) => {
          notices.push(`decisions are not counted (${messageOf(e)})`);
          return undefined;
        })
      : Promise.resolve(undefined),
  ]);
  const snapshot: AdmissionSnapshot = { ...lists, namespaces: {}, discovery };
  return {
    readAt: new Date().toISOString(),
    engines: buildEnginesReport(
      lists,
      served,
      sources,
      tallies ? decisionCounts(tallies) : undefined,
      undefined,
      snapshot,
    ),
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
