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
  key: string;
  source: SourcePolicyRef;
  policy: EngineSourcePolicy | undefined;
  /** The objects carrying it so far (few: a list, not a set), and their carriers by list. */
  carried: OwnedObject[] | undefined;
  webhooks: Carrier[] | undefined;
  generatedPolicies: Carrier[] | undefined;
  generatedBindings: Carrier[] | undefined;
}

const NONE: readonly Carrier[] = Object.freeze([]);

/** Joins engine policies (as read) with the objects recognised as carrying them. */
export function joinEngines(ownership: EngineOwnershipIndex, sources: EngineSources): EngineJoins {
  // Keyed by identity first (refs are shared objects), by sourceKey only on a miss.
  const links = new Map<string, Mutable>();
  const byRef = new Map<SourcePolicyRef, Mutable>();
  const entry = (ref: SourcePolicyRef): Mutable => {
    let e = byRef.get(ref);
    if (e) return e;
    const k = sourceKey(ref);
    e = links.get(k);
    if (!e) {
      e = {
        key: k,
        source: ref,
        policy: undefined,
        carried: undefined,
        webhooks: undefined,
        generatedPolicies: undefined,
        generatedBindings: undefined,
      };
      links.set(k, e);
    }
    byRef.set(ref, e);
    return e;
  };
  for (const p of sources.policies) entry(p.ref).policy = p;

  const sourcesOf = new Map<OwnedObject, string[]>();
  const add = (ref: SourcePolicyRef, o: OwnedObject, certainty: Certainty, because: string) => {
    const e = entry(ref);
    if (e.carried?.includes(o)) return;
    (e.carried ??= []).push(o);
    const carrier: Carrier = {
      kind: o.kind,
      name: o.name,
      hook: o.hook,
      position: o.position,
      certainty,
      because,
    };
    if (o.position !== undefined) (e.webhooks ??= []).push(carrier);
    else if (o.kind.endsWith("Binding")) (e.generatedBindings ??= []).push(carrier);
    else (e.generatedPolicies ??= []).push(carrier);
    const back = sourcesOf.get(o);
    if (back) back.push(e.key);
    else sourcesOf.set(o, [e.key]);
  };

  const objects = Object.values(ownership.objects);
  // What ownership names outright (configurations are left out: their hooks carry the policy).
  for (const o of objects) {
    if (o.kind.endsWith("WebhookConfiguration") && o.position === undefined) continue;
    if (o.ownership.sources.length === 0) continue;
    const certainty = weakest(
      o.ownership.certainty,
      o.ownership.sourceCertainty ?? o.ownership.certainty,
    );
    const because = o.ownership.evidence.join("; ");
    for (const ref of o.ownership.sources) add(ref, o, certainty, because);
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
    const own = byRef.get(k.ref);
    if (own?.webhooks) continue;
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
  for (const v of links.values())
    bySource[v.key] = {
      source: v.source,
      policy: v.policy,
      webhooks: v.webhooks ?? NONE,
      generatedPolicies: v.generatedPolicies ?? NONE,
      generatedBindings: v.generatedBindings ?? NONE,
    };
  const back: Record<string, readonly string[]> = {};
  for (const [o, v] of sourcesOf) back[ownedKey(o.kind, o.name, o.position)] = v;
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
