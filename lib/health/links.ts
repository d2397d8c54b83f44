/** Links between the Health page, the detail pages, decisions and prediction (pure). */
import type { PolicyKind } from "@/lib/admission/health/metrics";

/** The Health page row id of a hook (webhook or conversion webhook) at `index` of its source. */
export function healthRowId(source: string, configuration: string, index: number): string {
  return `health-${source}-${configuration}-${index}`;
}

/** The Health page row id of an admission policy binding (kinds apart: names may repeat). */
export function policyHealthRowId(kind: PolicyKind, policy: string, binding: string): string {
  return `health-policy-${kind}-${policy}-${binding}`;
}

const POLICY_PATH: Record<PolicyKind, { policy: string; binding: string }> = {
  ValidatingAdmissionPolicy: {
    policy: "validatingadmissionpolicies",
    binding: "validatingadmissionpolicybindings",
  },
  MutatingAdmissionPolicy: {
    policy: "mutatingadmissionpolicies",
    binding: "mutatingadmissionpolicybindings",
  },
};

/** A policy's detail page. */
export function policyHref(kind: PolicyKind, policy: string): string {
  return `/policies/${POLICY_PATH[kind].policy}/${encodeURIComponent(policy)}`;
}

/** A policy binding's detail page. */
export function policyBindingHref(kind: PolicyKind, binding: string): string {
  return `/policies/${POLICY_PATH[kind].binding}/${encodeURIComponent(binding)}`;
}

/** The Health page, scrolled to one row. */
export function healthHref(rowId: string): string {
  return `/health#${encodeURIComponent(rowId)}`;
}

/** The admission phase of a webhook configuration kind, if it is one. */
const WEBHOOK_PHASE: Record<string, "mutating" | "validating"> = {
  MutatingWebhookConfiguration: "mutating",
  ValidatingWebhookConfiguration: "validating",
};

/**
 * The decision feed filtered to one webhook (by name, as the audit annotations name it), in the
 * phase of its configuration's kind when that is given (a name may be in a mutating and in a
 * validating configuration).
 */
export function hookDecisionsHref(hook: string, source?: string): string {
  const q = new URLSearchParams({ hook });
  const phase = source === undefined ? undefined : WEBHOOK_PHASE[source];
  if (phase) q.set("phase", phase);
  return `/decisions?${q.toString()}`;
}

/**
 * The decision feed filtered to one admission policy, of one kind when it is known (a
 * ValidatingAdmissionPolicy and a MutatingAdmissionPolicy may share a name: the feed's phase
 * tells them apart).
 */
export function policyDecisionsHref(policy: string, kind?: PolicyKind): string {
  const q = new URLSearchParams({ policy });
  if (kind) q.set("phase", kind === "MutatingAdmissionPolicy" ? "mutating" : "validating");
  return `/decisions?${q.toString()}`;
}
