/** Identities of hooks and policy bindings, shared by match, order and predict output. */
import type { ManifestOrigin } from "@/lib/admission/model/manifests";

/** What kind of object a hook comes from. */
export type HookSourceKind =
  | "MutatingWebhookConfiguration"
  | "ValidatingWebhookConfiguration"
  | "MutatingAdmissionPolicy"
  | "ValidatingAdmissionPolicy"
  | "InitializerConfiguration";

/** One hook: a webhook in a configuration, an initializer, or a (policy, binding) pair. */
export interface HookIdentity {
  readonly source: HookSourceKind;
  /** Configuration name, or policy name. */
  readonly configuration: string;
  /** Webhook / initializer name, or the binding name for policies. */
  readonly name: string;
  /** Position inside the configuration (0 for policies). */
  readonly position: number;
  /**
   * Stable key: `<configName>/<webhookName>/<n>` like the apiserver's webhook UID (n counts
   * duplicate names in that configuration), `<policy>/<binding>` for policies, and
   * `initializer:<config>/<name>/<position>` for initializers.
   */
  readonly key: string;
  /**
   * Set when the hook was loaded from a manifest directory (a static hook or policy, see
   * model/manifests.ts): its plugin and file. Absent for API objects. For policies it is the
   * policy's origin (a static binding always names a static policy).
   */
  readonly origin?: ManifestOrigin;
}

/** Whether a source is an admission policy's (its hooks are bindings). */
export function isPolicySource(
  s: string,
): s is "MutatingAdmissionPolicy" | "ValidatingAdmissionPolicy" {
  return s === "MutatingAdmissionPolicy" || s === "ValidatingAdmissionPolicy";
}

/** `mutating:<key>` etc.: a key unique across all hook sources. */
export function hookKey(id: HookIdentity): string {
  return `${id.source}:${id.key}`;
}

/** A short human label, e.g. `MutatingWebhookConfiguration 10-inject / inject.example.com`. */
export function describeHook(id: HookIdentity): string {
  return `${id.source} ${id.configuration} / ${id.name}`;
}
