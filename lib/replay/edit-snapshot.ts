/**
 * The cluster's admission state with one object replaced by its edited version (or added, when
 * it is new): what the apiserver would hold once the edit is applied. Pure.
 */
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

/** The admission kinds an edit can change, by their resource name. */
const LIST_OF = {
  mutatingwebhookconfigurations: "mutatingWebhookConfigurations",
  validatingwebhookconfigurations: "validatingWebhookConfigurations",
  validatingadmissionpolicies: "validatingAdmissionPolicies",
  validatingadmissionpolicybindings: "validatingAdmissionPolicyBindings",
  mutatingadmissionpolicies: "mutatingAdmissionPolicies",
  mutatingadmissionpolicybindings: "mutatingAdmissionPolicyBindings",
} as const satisfies Record<string, keyof AdmissionSnapshot>;

export type EditableResource = keyof typeof LIST_OF;

interface Named {
  readonly metadata?: { readonly name?: string };
}

const nameOf = (o: Named | undefined) => o?.metadata?.name ?? "";

/**
 * `snapshot` with the object of `resource` named `name` replaced by `edited` (appended when no
 * such object exists: a new one). Compiling orders the lists as the apiserver calls them.
 */
export function withEdit(
  snapshot: AdmissionSnapshot,
  resource: EditableResource,
  name: string,
  edited: Record<string, unknown>,
): AdmissionSnapshot {
  const key = LIST_OF[resource];
  const list = (snapshot[key] ?? []) as readonly Named[];
  const at = list.findIndex((o) => nameOf(o) === name);
  const next = at < 0 ? [...list, edited] : list.map((o, i) => (i === at ? edited : o));
  return { ...snapshot, [key]: next };
}

/** The stored object of `resource` named `name` in the snapshot, if any. */
export function storedIn(
  snapshot: AdmissionSnapshot,
  resource: EditableResource,
  name: string,
): Record<string, unknown> | undefined {
  const list = (snapshot[LIST_OF[resource]] ?? []) as readonly Named[];
  return list.find((o) => nameOf(o) === name) as Record<string, unknown> | undefined;
}
