/**
 * The engine checks (L20–L24) as the dashboard runs them: which admission policies and bindings
 * they read beside the webhook configurations (those an engine owns; the others stay out of the
 * webhook pages' lint), and each engine's findings for the Engines page. Pure.
 */
import type { EngineOwnershipIndex, OwnershipInput } from "@/lib/admission/engines/ownership";
import type { EngineSources } from "@/lib/admission/engines/sources";
import type { EngineName, OwnedKind } from "@/lib/admission/engines/types";
import { lint } from "@/lib/admission/lint/lint";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import type { Labels } from "@/lib/admission/model/selectors";
import type { LintEngineState } from "@/lib/api/webhooks";

type PolicyLists = Omit<LintEngineState, "sources">;

const POLICY_KINDS: ReadonlyArray<readonly [keyof PolicyLists, OwnedKind]> = [
  ["validatingAdmissionPolicies", "ValidatingAdmissionPolicy"],
  ["validatingAdmissionPolicyBindings", "ValidatingAdmissionPolicyBinding"],
  ["mutatingAdmissionPolicies", "MutatingAdmissionPolicy"],
  ["mutatingAdmissionPolicyBindings", "MutatingAdmissionPolicyBinding"],
];

/** The admission policies and bindings an engine owns, and how many. */
export function ownedPolicies(
  objects: OwnershipInput,
  ownership: EngineOwnershipIndex,
): { lists: PolicyLists; count: number } {
  const lists: Record<string, unknown[]> = {};
  let count = 0;
  for (const [key, kind] of POLICY_KINDS) {
    const items = (objects[key] ?? []) as ReadonlyArray<{ metadata?: { name?: string } }>;
    const mine = items.filter((o) => ownership.objects[`${kind}/${o.metadata?.name ?? ""}`]);
    count += mine.length;
    lists[key] = mine;
  }
  return { lists: lists as PolicyLists, count };
}

/**
 * Each engine's findings: the offline checks (L20–L24 among them) over the webhook
 * configurations and the admission policies the engines own, those about an engine's object.
 */
export function engineFindings(
  objects: OwnershipInput,
  sources: EngineSources,
  ownership: EngineOwnershipIndex,
  namespaces: Readonly<Record<string, Labels>>,
): Partial<Record<EngineName, LintFinding[]>> {
  const findings = lint(
    {
      snapshot: {
        mutatingWebhookConfigurations: objects.mutatingWebhookConfigurations ?? [],
        validatingWebhookConfigurations: objects.validatingWebhookConfigurations ?? [],
        ...ownedPolicies(objects, ownership).lists,
        namespaces,
      },
      engines: sources,
    },
    { offlineOnly: true },
  );
  const out: Partial<Record<EngineName, LintFinding[]>> = {};
  for (const f of findings) if (f.engine) (out[f.engine] ??= []).push(f);
  return out;
}
