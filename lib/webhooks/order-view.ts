/**
 * The effective call order of webhook configurations for the order page and the detail page,
 * built on lib/admission (compile, order). Pure.
 */
import { compileSnapshot } from "@/lib/admission/matching/compile";
import {
  effectiveOrder,
  planReinvocation,
  worstCaseLatency,
  type MutatingCall,
  type ReinvocationTrigger,
} from "@/lib/admission/prediction/order";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";
import {
  withManifests,
  type AdmissionSnapshot,
  type ManifestObjects,
} from "@/lib/admission/model/snapshot";
import type { ManifestOrigin } from "@/lib/admission/model/manifests";

export interface OrderEntry {
  key: string;
  stage: "mutating-webhook" | "validating-webhook";
  configuration: string;
  hook: string;
  /** Position inside its configuration. */
  position: number;
  /** Index in its stage (the order the apiserver calls mutating hooks in). */
  index: number;
  timeoutSeconds: number;
  reinvocationPolicy?: string;
  /** Set for a static hook (loaded from a manifest file): first in its stage, read-only. */
  origin?: ManifestOrigin;
}

/** One (policy, binding) pair: the unit the policy plugins evaluate. */
export interface PolicyOrderEntry {
  key: string;
  stage: "mutating-policy" | "validating-policy";
  policy: string;
  binding: string;
  /** The binding names a policy that does not exist: it does nothing. */
  policyMissing: boolean;
  failurePolicy: string;
  validationActions: readonly string[];
  reinvocationPolicy: string;
  /** Set for a static policy (loaded from a manifest file): evaluated before the API's. */
  origin?: ManifestOrigin;
}

/** The admission policy collections, when the cluster serves them. */
export type PolicySnapshot = Pick<
  AdmissionSnapshot,
  | "validatingAdmissionPolicies"
  | "validatingAdmissionPolicyBindings"
  | "mutatingAdmissionPolicies"
  | "mutatingAdmissionPolicyBindings"
>;

export interface OrderModel {
  /** Before every mutating webhook; the apiserver guarantees no order among them. */
  mutatingPolicies: PolicyOrderEntry[];
  mutating: OrderEntry[];
  reinvocation: Array<{ entry: OrderEntry; trigger: ReinvocationTrigger }>;
  /**
   * Mutating policies (pairs) with reinvocationPolicy IfNeeded: they may run again in round 1
   * too, before the webhooks that do.
   */
  policyReinvocation: Array<{ entry: PolicyOrderEntry; trigger: ReinvocationTrigger }>;
  validating: OrderEntry[];
  /** Evaluated in the apiserver beside the validating webhooks. */
  validatingPolicies: PolicyOrderEntry[];
  /** Serial mutating time, both rounds, at every timeout. */
  mutatingSeconds: number;
  /** The slowest validating hook (they run in parallel). */
  validatingSeconds: number;
  worstCaseSeconds: number;
}

/**
 * The order model of the given configurations; `manifests`, the static objects the apiserver loads
 * from its manifest directories, run first within their plugin.
 */
export function orderModel(
  mutating: readonly V1MutatingWebhookConfiguration[],
  validating: readonly V1ValidatingWebhookConfiguration[],
  policies: PolicySnapshot = {},
  manifests?: ManifestObjects,
): OrderModel {
  const api: AdmissionSnapshot = {
    mutatingWebhookConfigurations: mutating,
    validatingWebhookConfigurations: validating,
    ...policies,
  };
  const compiled = compileSnapshot(manifests ? withManifests(api, manifests) : api);
  const policyEntries = (stage: PolicyOrderEntry["stage"]) =>
    (stage === "mutating-policy" ? compiled.mutatingPolicies : compiled.validatingPolicies).map(
      (p): PolicyOrderEntry => ({
        key: p.key,
        stage,
        policy: p.policyName,
        binding: p.bindingName,
        policyMissing: p.policyMissing,
        failurePolicy: p.failurePolicy,
        validationActions: p.validationActions,
        reinvocationPolicy: p.reinvocationPolicy,
        ...(p.id.origin ? { origin: p.id.origin } : {}),
      }),
    );
  const order = effectiveOrder(compiled);
  const toEntry = (o: (typeof order)[number]): OrderEntry => ({
    key: o.hook.key,
    stage: o.stage as OrderEntry["stage"],
    configuration: o.hook.configuration,
    hook: o.hook.name,
    position: o.hook.position,
    index: o.index,
    timeoutSeconds: o.timeoutSeconds,
    reinvocationPolicy: o.reinvocationPolicy,
    ...(o.hook.origin ? { origin: o.hook.origin } : {}),
  });
  const m = order.filter((o) => o.stage === "mutating-webhook").map(toEntry);
  const v = order.filter((o) => o.stage === "validating-webhook").map(toEntry);
  const byKey = new Map(m.map((e) => [e.key, e]));
  const mutatingPolicies = policyEntries("mutating-policy");
  // A binding whose policy is missing does nothing, so it neither runs again nor mutates.
  const livePolicies = mutatingPolicies.filter((p) => !p.policyMissing);
  const policyByKey = new Map(livePolicies.map((p) => [p.key, p]));
  // Round 0 as the apiserver runs it: every mutating policy, then the webhooks.
  const ifNeeded = (p: string | undefined): MutatingCall["reinvocationPolicy"] =>
    p === "IfNeeded" ? "IfNeeded" : "Never";
  const plan = planReinvocation([
    ...livePolicies.map((p) => ({
      key: p.key,
      stage: "mutating-policy" as const,
      reinvocationPolicy: ifNeeded(p.reinvocationPolicy),
      timeoutSeconds: 0,
    })),
    ...m.map((e) => ({
      key: e.key,
      stage: "mutating-webhook" as const,
      reinvocationPolicy: ifNeeded(e.reinvocationPolicy),
      timeoutSeconds: e.timeoutSeconds,
    })),
  ]);
  const reinvocation = plan.flatMap((p) => {
    const entry = p.call.stage === "mutating-webhook" ? byKey.get(p.call.key) : undefined;
    return entry ? [{ entry, trigger: p.trigger }] : [];
  });
  const policyReinvocation = plan.flatMap((p) => {
    const entry = p.call.stage === "mutating-policy" ? policyByKey.get(p.call.key) : undefined;
    return entry ? [{ entry, trigger: p.trigger }] : [];
  });
  const mutatingTimeouts = [
    ...m.map((e) => e.timeoutSeconds),
    ...reinvocation.map((r) => r.entry.timeoutSeconds),
  ];
  const validatingTimeouts = v.map((e) => e.timeoutSeconds);
  return {
    mutatingPolicies,
    mutating: m,
    reinvocation,
    policyReinvocation,
    validating: v,
    validatingPolicies: policyEntries("validating-policy"),
    mutatingSeconds: worstCaseLatency(mutatingTimeouts, []),
    validatingSeconds: worstCaseLatency([], validatingTimeouts),
    worstCaseSeconds: worstCaseLatency(mutatingTimeouts, validatingTimeouts),
  };
}
