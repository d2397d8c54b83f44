/** Links between the Health page, the detail pages, decisions and prediction (pure). */
import type { PolicyKind } from "@/lib/admission/metrics";

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

/** The decision feed filtered to one webhook (by name, as the audit annotations name it). */
export function hookDecisionsHref(hook: string): string {
  return `/decisions?${new URLSearchParams({ hook }).toString()}`;
}

/** The decision feed filtered to one admission policy. */
export function policyDecisionsHref(policy: string): string {
  return `/decisions?${new URLSearchParams({ policy }).toString()}`;
}
