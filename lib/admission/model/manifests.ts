/**
 * Hooks and policies the apiserver loads from files (KEP-5793, `ManifestBasedAdmissionControlConfig`,
 * beta and on by default in 1.37): each of the four admission plugins may be given a
 * `staticManifestsDir` in the AdmissionConfiguration. What they load is invisible to the API
 * (absent from lists, 404 on GET) and behaves apart from API objects:
 * - within its plugin a static hook or policy runs before every API-based one (the composite
 *   sources of `webhook/generic/composite_webhook_source.go` and
 *   `policy/generic/composite_policy_source.go`), and reinvocation crosses the line;
 * - static webhooks are called for writes of the six admission configuration kinds, which
 *   API-based webhooks never see (`generic/webhook.go` `Dispatch`); static policies are called for
 *   writes of policies and bindings, which API-based policies never see (`policy/generic/plugin.go`).
 * This file holds the words of that model; the snapshot marks which objects are static
 * (`AdmissionSnapshot.manifestOrigins`) and the compiled hooks carry it (`HookIdentity.origin`).
 */

/** `manifest.StaticConfigSuffix`: the name suffix reserved to manifest-based objects. */
export const STATIC_CONFIG_SUFFIX = ".static.k8s.io";

/** The admission plugins that take a `staticManifestsDir`, by their registered names. */
export type ManifestPlugin =
  | "MutatingAdmissionPolicy"
  | "MutatingAdmissionWebhook"
  | "ValidatingAdmissionPolicy"
  | "ValidatingAdmissionWebhook";

/** The plugins in the apiserver's order of admission (mutating policies first). */
export const MANIFEST_PLUGINS: readonly ManifestPlugin[] = [
  "MutatingAdmissionPolicy",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
];

/** The kinds a manifest directory can hold. */
export type ManifestKind =
  | "MutatingWebhookConfiguration"
  | "ValidatingWebhookConfiguration"
  | "MutatingAdmissionPolicy"
  | "MutatingAdmissionPolicyBinding"
  | "ValidatingAdmissionPolicy"
  | "ValidatingAdmissionPolicyBinding";

/** The kinds each plugin's directory accepts (admissionregistration.k8s.io/v1 only); others fail the load. */
export const PLUGIN_KINDS: Readonly<Record<ManifestPlugin, readonly ManifestKind[]>> = {
  MutatingAdmissionWebhook: ["MutatingWebhookConfiguration"],
  ValidatingAdmissionWebhook: ["ValidatingWebhookConfiguration"],
  MutatingAdmissionPolicy: ["MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"],
  ValidatingAdmissionPolicy: ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"],
};

/**
 * Where a static object comes from. An object without an origin is an API object.
 * - `file`: the file it was read from (absolute path as given to Portcullis), when the manifest
 *   directory was read; absent when its presence is only inferred (metrics, audit annotations).
 * - `dir`: the plugin's manifest directory, when known.
 */
export interface ManifestOrigin {
  readonly kind: "manifest";
  readonly plugin: ManifestPlugin;
  readonly file?: string;
  readonly dir?: string;
}

/** The key of `AdmissionSnapshot.manifestOrigins`: `<Kind>/<name>`. */
export function manifestOriginKey(kind: ManifestKind, name: string): string {
  return `${kind}/${name}`;
}

/** Whether a name carries the reserved suffix (the REST API refuses such names on 1.37). */
export function hasStaticSuffix(name: string): boolean {
  return name.endsWith(STATIC_CONFIG_SUFFIX);
}
