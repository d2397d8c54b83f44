/**
 * Policy engine checks: L20 (a rule enforced twice, by the generated admission policy and by the
 * engine's webhook), L21 (an admission policy the engine failed to generate), L22 (a Gatekeeper
 * Constraint whose generated binding is missing), L23 (a Kubewarden evaluation timeout above its
 * webhook's timeout), L24 (an engine's fail-closed hook over the engine's own namespace).
 * Each reads the ownership and joins of lib/admission/engines; on a cluster without engines
 * they find nothing.
 */
import type { CompiledWebhook } from "@/lib/admission/matching/compile";
import { createMatchContext } from "@/lib/admission/matching/match-context";
import { makeRequest } from "@/lib/admission/model/request";
import { metadataOnlyVerdict } from "@/lib/admission/lint/deadlock";
import {
  namespaceRequirementFix,
  webhookObject,
  type LintContext,
  type LintFinding,
  type LintObject,
} from "@/lib/admission/lint/lint-types";
import { linksOf, type Carrier, type SourcePolicyLinks } from "@/lib/admission/engines/joins";
import { ownershipOf } from "@/lib/admission/engines/ownership";
import type { EngineSourcePolicy } from "@/lib/admission/engines/sources";
import {
  describeSource,
  type EngineName,
  type SourcePolicyRef,
} from "@/lib/admission/engines/types";

const ENGINE_TITLE: Record<EngineName, string> = {
  gatekeeper: "Gatekeeper",
  kyverno: "Kyverno",
  kubewarden: "Kubewarden",
};

/** The engine policy as a finding's object. */
function sourceObject(ref: SourcePolicyRef): LintObject {
  return {
    kind: ref.kind,
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    engine: ref.engine,
    sourcePolicy: ref,
  };
}

function carrierObject(c: Carrier, ref: SourcePolicyRef): LintObject {
  return {
    kind: c.kind,
    name: c.name,
    ...(c.hook !== undefined ? { hook: c.hook } : {}),
    engine: ref.engine,
    sourcePolicy: ref,
  };
}

/** Does the policy deny at the webhook (as opposed to only warning or auditing)? */
function webhookDenies(p: EngineSourcePolicy | undefined): boolean {
  if (!p) return true;
  switch (p.type) {
    case "gatekeeper-constraint":
      return p.actions.webhook.includes("deny");
    case "kyverno-policy":
      return p.admission && p.rules.some((r) => r.failureAction === "Enforce");
    case "kyverno-cel-policy":
      return p.admission && p.validationActions.includes("Deny");
    default:
      return true;
  }
}

/** The validationActions of a binding in the snapshot. */
function bindingActions(ctx: LintContext, name: string): readonly string[] {
  const b = (ctx.input.snapshot.validatingAdmissionPolicyBindings ?? []).find(
    (x) => x.metadata?.name === name,
  );
  return b?.spec?.validationActions ?? [];
}

/** L20: the same rule enforced by the generated policy+binding and by the engine's webhook. */
export function checkDoubleEnforcement(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const links of Object.values(ctx.engines.joins.bySource)) {
    const { source, policy } = links;
    if (links.webhooks.length === 0 || links.generatedBindings.length === 0) continue;
    if (links.generatedPolicies.length === 0) continue;
    const denying = links.generatedBindings.filter((b) =>
      bindingActions(ctx, b.name).includes("Deny"),
    );
    if (denying.length === 0 || !webhookDenies(policy)) continue;
    const engine = ENGINE_TITLE[source.engine];
    const why =
      source.engine === "gatekeeper"
        ? `Gatekeeper's webhook stays in place as a fallback and evaluates every Constraint acting at ${links.webhooks[0]?.hook ?? "it"}, so a denied request is refused twice and the webhook's outage still fails requests the policy already judges. Scope the action to one enforcement point (enforcementAction: scoped, scopedEnforcementActions naming vap.k8s.io or validation.gatekeeper.sh).`
        : `${engine} leaves a policy whose admission policy it generated out of its webhook, but a hook still routes this one to ${engine} (${links.webhooks.map((w) => w.hook).join(", ")}): the webhook configuration is stale, or the policy's status does not say generated.`;
    out.push({
      id: "L20",
      severity: "medium",
      title: "Rule enforced by both the generated admission policy and the engine's webhook",
      objects: [
        sourceObject(source),
        ...links.webhooks.map((w) => carrierObject(w, source)),
        ...links.generatedPolicies.map((p) => carrierObject(p, source)),
        ...denying.map((b) => carrierObject(b, source)),
      ],
      explanation: `${describeSource(source)} is enforced by the ValidatingAdmissionPolicy ${links.generatedPolicies.map((p) => p.name).join(", ")} (binding ${denying.map((b) => b.name).join(", ")}, Deny) and by ${engine}'s webhook. ${why}`,
      fix: undefined,
      engine: source.engine,
      sourcePolicy: source,
    });
  }
  return out;
}

/** L21: an admission policy the engine was asked to generate and did not, with its reason. */
export function checkGenerationFailures(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const p of ctx.engines.sources.policies) {
    let reason: string | undefined;
    let severity: "medium" | "low" = "medium";
    if (p.type === "gatekeeper-template") {
      const failed = p.vapGeneration.filter((v) => v.state === "error");
      if (failed.length > 0)
        reason = [...new Set(failed.map((v) => v.warning ?? "state error"))].join("; ");
    } else if (p.type === "kyverno-cel-policy") {
      if (p.generateAdmissionPolicy && p.generation && !p.generation.generated)
        reason = p.generation.message || "status.generated is false";
    } else if (p.type === "kyverno-policy") {
      // ClusterPolicy generation is Kyverno's choice (a flag, and policies it can translate); a
      // reason in the status says why this one was not.
      if (p.generation && !p.generation.generated && p.generation.message) {
        reason = p.generation.message;
        severity = "low";
      }
    }
    if (reason === undefined) continue;
    const engine = ENGINE_TITLE[p.ref.engine];
    out.push({
      id: "L21",
      severity,
      title: "Engine policy not turned into an admission policy",
      objects: [sourceObject(p.ref)],
      explanation: `${engine} did not generate a ValidatingAdmissionPolicy from ${describeSource(p.ref)}: ${reason}. ${engine}'s webhook alone enforces it, with the webhook's latency and failure policy.`,
      fix: undefined,
      engine: p.ref.engine,
      sourcePolicy: p.ref,
    });
  }
  return out;
}

/** L22: a Constraint acting at vap.k8s.io whose template has a generated policy but no binding. */
export function checkMissingBindings(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const p of ctx.engines.sources.policies) {
    if (p.type !== "gatekeeper-constraint" || p.actions.vap.length === 0) continue;
    const links: SourcePolicyLinks = linksOf(ctx.engines.joins, p.ref);
    if (links.generatedPolicies.length === 0 || links.generatedBindings.length > 0) continue;
    const vapErrors = p.enforcementPoints.filter(
      (e) => e.point === "vap.k8s.io" && e.state === "error" && e.message,
    );
    out.push({
      id: "L22",
      severity: "medium",
      title: "Constraint without its generated binding",
      objects: [
        sourceObject(p.ref),
        ...links.generatedPolicies.map((g) => carrierObject(g, p.ref)),
      ],
      explanation: `${describeSource(p.ref)} acts at vap.k8s.io (${p.actions.vap.join(", ")}) and its template's ValidatingAdmissionPolicy ${links.generatedPolicies.map((g) => g.name).join(", ")} exists, but no binding gatekeeper-${p.ref.kind.toLowerCase()}-${p.ref.name} does: the policy enforces nothing for this Constraint${vapErrors.length > 0 ? ` (Gatekeeper reports: ${vapErrors.map((e) => e.message).join("; ")})` : ""}. Gatekeeper creates it unless --default-create-vap-binding-for-constraints=false or the Constraint's gatekeeper.sh/block-vapb-generation-until annotation is still in the future.`,
      fix: undefined,
      engine: "gatekeeper",
      sourcePolicy: p.ref,
    });
  }
  return out;
}

/** L23: a Kubewarden policy's evaluation timeout above its webhook's timeoutSeconds. */
export function checkEvaluationTimeouts(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const hooks = new Map<string, CompiledWebhook>();
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating])
    hooks.set(`${h.id.source}/${h.id.configuration}#${h.id.position}`, h);
  for (const p of ctx.engines.sources.policies) {
    if (p.type !== "kubewarden-policy") continue;
    const evals = [
      ...(p.timeoutEvalSeconds !== undefined ? [p.timeoutEvalSeconds] : []),
      ...p.members.flatMap((m) =>
        m.timeoutEvalSeconds !== undefined ? [m.timeoutEvalSeconds] : [],
      ),
    ];
    if (evals.length === 0) continue;
    const evalSeconds = Math.max(...evals);
    const carriers = linksOf(ctx.engines.joins, p.ref).webhooks;
    const compiled = carriers.flatMap((c) => {
      const h = hooks.get(`${c.kind}/${c.name}#${c.position ?? 0}`);
      return h ? [{ c, h }] : [];
    });
    const limits =
      compiled.length > 0
        ? compiled.map(({ c, h }) => ({
            seconds: h.timeoutSeconds,
            c: c as Carrier | undefined,
            h,
          }))
        : [{ seconds: p.timeoutSeconds, c: undefined, h: undefined }];
    for (const { seconds, c, h } of limits) {
      if (evalSeconds <= seconds) continue;
      out.push({
        id: "L23",
        severity: "medium",
        title: "Policy evaluation can outlast its webhook's timeout",
        objects: [sourceObject(p.ref), ...(c ? [carrierObject(c, p.ref)] : [])],
        explanation: `${describeSource(p.ref)} lets an evaluation run ${evalSeconds}s (timeoutEvalSeconds) but ${h ? `its webhook ${h.id.name} gives up after ${seconds}s` : `its timeoutSeconds is ${seconds}s`}: the apiserver stops waiting first and applies failurePolicy ${p.failurePolicy}${p.failurePolicy === "Fail" ? " (the request is refused)" : " (the request passes unchecked)"}, so the evaluation timeout never takes effect. Kubewarden refuses this on create (api/policies/v1/policy_validation.go); it can still arise from an edited webhook or a group member's timeout.`,
        fix: {
          description: `set timeoutEvalSeconds to at most ${seconds}, or raise timeoutSeconds on the policy (not on its webhook: Kubewarden restores it)`,
          target: sourceObject(p.ref),
          merge: { spec: { timeoutEvalSeconds: seconds } },
        },
        engine: "kubewarden",
        sourcePolicy: p.ref,
      });
    }
  }
  return out;
}

/** L24: an engine's fail-closed hook intercepting writes in the engine's own namespace. */
export function checkEngineNamespace(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const { ownership } = ctx.engines;
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.failurePolicy !== "Fail") continue;
    const kind = h.id.source;
    if (kind !== "ValidatingWebhookConfiguration" && kind !== "MutatingWebhookConfiguration")
      continue;
    const own = ownershipOf(ownership, kind, h.id.configuration, h.id.position);
    if (!own) continue;
    const namespaces = ownership.engineNamespaces[own.engine] ?? [];
    for (const ns of namespaces) {
      const labels = ctx.compiled.namespaces.get(ns) ?? { "kubernetes.io/metadata.name": ns };
      const req = (group: string, resource: string, k: string) =>
        makeRequest({
          group,
          resource,
          operation: "CREATE",
          namespace: ns,
          kind: { group, kind: k },
          namespaceObject: { labels },
          object: { metadata: { namespace: ns } },
        });
      const hits = (
        [
          ["", "pods", "Pod"],
          ["coordination.k8s.io", "leases", "Lease"],
          ["", "secrets", "Secret"],
          ["", "configmaps", "ConfigMap"],
        ] as const
      ).filter(
        ([g, r, k]) =>
          metadataOnlyVerdict(h, createMatchContext(req(g, r, k), ctx.compiled)) !== "no",
      );
      if (hits.length === 0) continue;
      const engine = ENGINE_TITLE[own.engine];
      out.push({
        id: "L24",
        severity: "high",
        title: "Engine's fail-closed hook covers the engine's own namespace",
        objects: [
          {
            ...webhookObject(h),
            engine: own.engine,
            ...(own.source ? { sourcePolicy: own.source } : {}),
          },
          { kind: "Namespace", name: ns },
        ],
        explanation: `${h.id.name} (${engine}, ${own.certainty}: ${own.evidence[0] ?? ""}) has failurePolicy Fail and intercepts ${hits.map(([, r]) => r).join(", ")} in ${ns}, where ${engine} itself runs: while ${engine} is down, its own pods, leader-election leases and certificates there cannot be written, so it cannot come back.${own.engine === "gatekeeper" ? " Gatekeeper exempts namespaces labelled admission.gatekeeper.sh/ignore." : own.engine === "kubewarden" ? " Kubewarden leaves its namespace out of cluster-wide policies unless allowInsideAdmissionControllerNamespace is set." : " Kyverno leaves its namespace out through its configuration's webhooks namespaceSelector."}`,
        fix: namespaceRequirementFix(
          h,
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [ns] },
          `exclude ${ns} (through the engine's own settings: it restores edited webhook configurations)`,
        ),
        engine: own.engine,
        ...(own.source ? { sourcePolicy: own.source } : {}),
      });
    }
  }
  return out;
}
