/**
 * What the editor says before an engine-owned object is saved: that the engine will put its own
 * version back, which engine policy to change instead, and the emergency path the engine
 * documents. Pure; read from the live object alone (owner references, labels, annotations, names).
 */
import { recogniseOwnership, type OwnershipInput } from "@/lib/admission/engines/ownership";
import {
  describeSource,
  ownedKey,
  type EngineName,
  type EngineOwnership,
  type OwnedKind,
} from "@/lib/admission/engines/types";
import { engineLabel, enginesPageHref } from "./view";

export interface EngineEditWarning {
  engine: EngineName;
  ownership: EngineOwnership;
  /** One sentence: what the engine does with an edit. */
  reverts: string;
  /** The engine policy to change instead, in words, when known. */
  changeInstead?: string;
  /** The Engines page's row of that policy. */
  sourceHref?: string;
  /** The emergency paths the engine's documentation gives. */
  emergency: string[];
}

const LIST_OF: Record<OwnedKind, keyof OwnershipInput> = {
  ValidatingWebhookConfiguration: "validatingWebhookConfigurations",
  MutatingWebhookConfiguration: "mutatingWebhookConfigurations",
  ValidatingAdmissionPolicy: "validatingAdmissionPolicies",
  ValidatingAdmissionPolicyBinding: "validatingAdmissionPolicyBindings",
  MutatingAdmissionPolicy: "mutatingAdmissionPolicies",
  MutatingAdmissionPolicyBinding: "mutatingAdmissionPolicyBindings",
};

function isOwnedKind(k: string): k is OwnedKind {
  return Object.hasOwn(LIST_OF, k);
}

/** Gatekeeper: docs/emergency.md and docs/exempt-namespaces.md of its documentation. */
const GATEKEEPER_EMERGENCY = [
  "Exempt a namespace: label it admission.gatekeeper.sh/ignore (allowed only for the namespaces Gatekeeper's --exempt-namespace flags name).",
  "Emergency recovery, as Gatekeeper documents it: delete the ValidatingWebhookConfiguration gatekeeper-validating-webhook-configuration (all Gatekeeper admission checks stop; redeploying it, or the helm chart with its default disableValidatingWebhook: false, brings them back).",
];

/** Kyverno: installation/uninstallation.md "Clean up Webhooks". */
const KYVERNO_EMERGENCY = [
  "Kyverno re-creates the webhook configurations it manages while it runs; its documented cleanup deletes them (kyverno-resource-validating-webhook-cfg, kyverno-resource-mutating-webhook-cfg, kyverno-policy-…-webhook-cfg and the others it names) after the Kyverno admission controller is stopped or uninstalled.",
];

const KUBEWARDEN_EMERGENCY = [
  "Change the policy's mode to monitor, or delete the policy: the controller then removes its webhook configuration.",
];

/** The warning for the object `live` of kind `kind`, or undefined when no engine owns it. */
export function engineEditWarning(kind: string, live: unknown): EngineEditWarning | undefined {
  if (!isOwnedKind(kind) || !live || typeof live !== "object") return undefined;
  const name = (live as { metadata?: { name?: unknown } }).metadata?.name;
  if (typeof name !== "string" || name === "") return undefined;
  const input = { [LIST_OF[kind]]: [live] } as OwnershipInput;
  const index = recogniseOwnership(input);
  const owned =
    index.objects[ownedKey(kind, name)] ??
    Object.values(index.objects).find((o) => o.kind === kind && o.name === name);
  if (!owned) return undefined;
  const o = owned.ownership;
  const label = engineLabel(o.engine);
  const source = o.source;
  const isWebhook = kind.endsWith("WebhookConfiguration");
  const reverts = isWebhook
    ? `${label} manages this configuration and writes its own version back: a hand edit lasts only until its controller next reconciles.`
    : `${label} generated this object from ${source ? describeSource(source) : "one of its policies"} and overwrites it from there: a hand edit will be reverted.`;
  return {
    engine: o.engine,
    ownership: o,
    reverts,
    ...(source
      ? { changeInstead: describeSource(source), sourceHref: enginesPageHref(source) }
      : {}),
    emergency:
      o.engine === "gatekeeper"
        ? GATEKEEPER_EMERGENCY
        : o.engine === "kyverno"
          ? KYVERNO_EMERGENCY
          : KUBEWARDEN_EMERGENCY,
  };
}
