/** Which served admission kinds the webhook list shows (pure; shared by server and browser). */
import { servedKinds, type ServedKind } from "@/lib/k8s/served-kinds";

/** Roles of kinds that hold webhooks (or their historical equivalents). */
const HOOK_ROLES = new Set(["mutating", "validating", "initializer", "legacy-webhook"]);

/** Every webhook-like configuration kind discovery says the cluster serves, with where to read it. */
export function servedHookKinds(
  apis: Array<{ version: string; resources: Array<{ name: string; kind: string }> }>,
): ServedKind[] {
  return servedKinds(apis).filter(
    (k) =>
      k.readAt &&
      HOOK_ROLES.has(k.known.role) &&
      !k.known.kind.endsWith("Policy") &&
      !k.known.kind.endsWith("Binding"),
  );
}

const POLICY_KINDS = new Set([
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
]);

/** The admission policy and binding kinds discovery says the cluster serves, with where to read them. */
export function servedPolicyKinds(
  apis: Array<{ version: string; resources: Array<{ name: string; kind: string }> }>,
): ServedKind[] {
  return servedKinds(apis).filter((k) => k.readAt && POLICY_KINDS.has(k.known.kind));
}
