/**
 * The joins between an engine policy and the admission objects that carry it: the hooks that
 * send its requests to the engine, the admission policy generated from it and the binding that
 * enforces it; and back, from each of those to the engine policies it carries.
 *
 * Besides what ownership names outright, two carriers are the engines' design:
 * - Gatekeeper's `validation.gatekeeper.sh` hook evaluates every Constraint whose actions apply
 *   at that enforcement point (pkg/webhook/policy.go; points in pkg/util/enforcement_action.go),
 *   and a Constraint is enforced by the ValidatingAdmissionPolicy of its template.
 * - Kyverno routes the ClusterPolicies and Policies that need no hook of their own to the shared
 *   `validate.kyverno.svc-<fail|ignore>` / `mutate.kyverno.svc-<fail|ignore>` hooks by their
 *   failure policy (pkg/controllers/webhook/controller.go, utils.go webhookNameAndPath), except
 *   a ClusterPolicy whose ValidatingAdmissionPolicy was generated (getAllPolicies).
 */
import type { EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import {
  GATEKEEPER_WEBHOOK_POINT,
  type EngineSourcePolicy,
  type EngineSources,
  type GatekeeperConstraint,
  type KyvernoPolicy,
} from "@/lib/admission/engines/sources";
import {
  ownedKey,
  sourceKey,
  weakest,
  type Certainty,
  type OwnedKind,
  type OwnedObject,
  type SourcePolicyRef,
} from "@/lib/admission/engines/types";

/** An admission object that carries an engine policy, and how sure that is. */
export interface Carrier {
  readonly kind: OwnedKind;
  readonly name: string;
  readonly hook?: string;
  readonly position?: number;
  readonly certainty: Certainty;
  /** Why it is thought to carry the policy. */
  readonly because: string;
}

/** One engine policy and what carries it. */
export interface SourcePolicyLinks {
  readonly source: SourcePolicyRef;
  /** The policy as read, when it was. */
  readonly policy?: EngineSourcePolicy;
  /** Hooks (a configuration's webhook at a position) that send its requests to the engine. */
  readonly webhooks: readonly Carrier[];
  /** Admission policies generated from it. */
  readonly generatedPolicies: readonly Carrier[];
  /** Bindings generated from it. */
  readonly generatedBindings: readonly Carrier[];
}

export interface EngineJoins {
  /** By `sourceKey`. */
  readonly bySource: Readonly<Record<string, SourcePolicyLinks>>;
  /** By `ownedKey` (hooks with their position): the `sourceKey`s each object carries. */
  readonly sourcesOf: Readonly<Record<string, readonly string[]>>;
}

interface Mutable {
  source: SourcePolicyRef;
  policy?: EngineSourcePolicy;
  webhooks: Carrier[];
  generatedPolicies: Carrier[];
  generatedBindings: Carrier[];
}

/** Joins engine policies (as read) with the objects recognised as carrying them. */
export function joinEngines(ownership: EngineOwnershipIndex, sources: EngineSources): EngineJoins {
  const links = new Map<string, Mutable>();
  const sourcesOf = new Map<string, string[]>();
  const entry = (ref: SourcePolicyRef): Mutable => {
    const k = sourceKey(ref);
    let e = links.get(k);
    if (!e) {
      e = { source: ref, webhooks: [], generatedPolicies: [], generatedBindings: [] };
      links.set(k, e);
    }
    return e;
  };
  for (const p of sources.policies) entry(p.ref).policy = p;

  const add = (ref: SourcePolicyRef, o: OwnedObject, certainty: Certainty, because: string) => {
    const e = entry(ref);
    const carrier: Carrier = {
      kind: o.kind,
      name: o.name,
      ...(o.hook !== undefined ? { hook: o.hook } : {}),
      ...(o.position !== undefined ? { position: o.position } : {}),
      certainty,
      because,
    };
    const list =
      o.position !== undefined
        ? e.webhooks
        : o.kind.endsWith("Binding")
          ? e.generatedBindings
          : e.generatedPolicies;
    if (list.some((c) => c.kind === o.kind && c.name === o.name && c.position === o.position))
      return;
    list.push(carrier);
    const ok = ownedKey(o.kind, o.name, o.position);
    const sk = sourceKey(ref);
    const back = sourcesOf.get(ok) ?? [];
    if (!back.includes(sk)) back.push(sk);
    sourcesOf.set(ok, back);
  };

  const objects = Object.values(ownership.objects);
  // What ownership names outright (configurations are left out: their hooks carry the policy).
  for (const o of objects) {
    if (o.kind.endsWith("WebhookConfiguration") && o.position === undefined) continue;
    for (const ref of o.ownership.sources)
      add(
        ref,
        o,
        weakest(o.ownership.certainty, o.ownership.sourceCertainty ?? o.ownership.certainty),
        o.ownership.evidence.join("; "),
      );
  }

  // Gatekeeper: the webhook carries every Constraint acting at it; the template's policy enforces
  // each of its Constraints.
  const gatekeeperHooks = objects.filter(
    (o) =>
      o.ownership.engine === "gatekeeper" &&
      o.kind === "ValidatingWebhookConfiguration" &&
      o.hook === GATEKEEPER_WEBHOOK_POINT,
  );
  const templatePolicies = new Map<string, OwnedObject[]>();
  for (const o of objects)
    if (o.ownership.engine === "gatekeeper" && o.kind === "ValidatingAdmissionPolicy")
      for (const s of o.ownership.sources)
        if (s.kind === "ConstraintTemplate")
          templatePolicies.set(s.name, [...(templatePolicies.get(s.name) ?? []), o]);
  const templateOfKind = new Map<string, string>();
  for (const p of sources.policies)
    if (p.type === "gatekeeper-template") templateOfKind.set(p.constraintKind, p.ref.name);
  for (const p of sources.policies) {
    if (p.type !== "gatekeeper-constraint") continue;
    const c: GatekeeperConstraint = p;
    if (c.actions.webhook.length > 0)
      for (const h of gatekeeperHooks)
        add(
          c.ref,
          h,
          weakest(h.ownership.certainty, "strong"),
          `Gatekeeper's ${GATEKEEPER_WEBHOOK_POINT} hook evaluates every Constraint acting there (${c.actions.webhook.join(", ")})`,
        );
    const template = templateOfKind.get(c.ref.kind) ?? c.ref.kind.toLowerCase();
    for (const vap of templatePolicies.get(template) ?? [])
      add(
        c.ref,
        vap,
        vap.ownership.certainty,
        `generated from ConstraintTemplate ${template}, which defines ${c.ref.kind}`,
      );
  }

  // Kyverno: policies with no hook of their own go to the shared hooks of their failure policy.
  const sharedHooks = objects.filter(
    (o) =>
      o.ownership.engine === "kyverno" &&
      o.position !== undefined &&
      /^(validate|mutate)\.kyverno\.svc-(fail|ignore)$/.test(o.hook ?? ""),
  );
  for (const p of sources.policies) {
    if (p.type !== "kyverno-policy" || !p.admission) continue;
    const k: KyvernoPolicy = p;
    if (k.ref.kind === "ClusterPolicy" && k.generation?.generated) continue;
    const own = links.get(sourceKey(k.ref));
    if (own && own.webhooks.length > 0) continue;
    const suffix = k.failurePolicy === "Ignore" ? "ignore" : "fail";
    const wants = new Set<string>();
    if (k.rules.some((r) => r.type === "validate")) wants.add(`validate.kyverno.svc-${suffix}`);
    if (k.rules.some((r) => r.type === "mutate" || r.type === "verifyImages"))
      wants.add(`mutate.kyverno.svc-${suffix}`);
    for (const h of sharedHooks)
      if (wants.has(h.hook ?? ""))
        add(
          k.ref,
          h,
          "guess",
          `Kyverno sends the ${k.failurePolicy} policies without a hook of their own to ${h.hook}`,
        );
  }

  const bySource: Record<string, SourcePolicyLinks> = {};
  for (const [k, v] of links) bySource[k] = v;
  const back: Record<string, readonly string[]> = {};
  for (const [k, v] of sourcesOf) back[k] = v;
  return { bySource, sourcesOf: back };
}

/** The links of one engine policy (empty when nothing carries it). */
export function linksOf(joins: EngineJoins, ref: SourcePolicyRef): SourcePolicyLinks {
  return (
    joins.bySource[sourceKey(ref)] ?? {
      source: ref,
      webhooks: [],
      generatedPolicies: [],
      generatedBindings: [],
    }
  );
}
