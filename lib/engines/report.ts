/**
 * The Engines page's report, joined from what was read: per engine its policies with what carries
 * them, the hooks and admission policies it owns (with call-order place and attributed
 * decisions). Pure: the server builds it (server/engines/read.ts), the bench times it.
 */
import { recogniseOwnership, type EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import { joinEngines } from "@/lib/admission/engines/joins";
import type { EngineSources } from "@/lib/admission/engines/sources";
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
} from "@/lib/api/engines";

/** One engine kind as discovery serves it, at the version it is read in. */
export interface ServedEngineKind {
  engine: EngineName;
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
}

/** `xs` ordered by a key made once per item (code-unit order: stable across locales). */
function sortedBy<T>(xs: readonly T[], key: (x: T) => string): T[] {
  return xs
    .map((x) => ({ x, k: key(x) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((e) => e.x);
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
    // Only webhooks get a place here: the policies' CEL need not be compiled for it.
    const ordered = effectiveOrder(
      compileSnapshot({
        ...snapshot,
        validatingAdmissionPolicies: [],
        validatingAdmissionPolicyBindings: [],
        mutatingAdmissionPolicies: [],
        mutatingAdmissionPolicyBindings: [],
      }),
    );
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
    r.sources = sortedBy(r.sources, (l) => sourceKey(l.source));
    r.hooks = sortedBy(
      r.hooks,
      (h) => `${h.configuration}\u0000${String(h.index).padStart(6, "0")}`,
    );
    r.policies = sortedBy(r.policies, (p) => `${p.kind}\u0000${p.name}`);
  }
  return ENGINE_NAMES.flatMap((e) => {
    const r = reports.get(e);
    return r ? [r] : [];
  });
}
