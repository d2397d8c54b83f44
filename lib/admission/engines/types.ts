/**
 * Policy engines (Kyverno, Gatekeeper, Kubewarden): the policies they are configured with, and
 * which of the cluster's admission objects they own. Plain data, so a server render, the browser
 * and the command line can pass it around as JSON.
 */

/** The engines recognised. */
export type EngineName = "kyverno" | "gatekeeper" | "kubewarden";

/** Every engine, in the order they are shown. @public */
export const ENGINE_NAMES: readonly EngineName[] = ["gatekeeper", "kyverno", "kubewarden"];

/**
 * How sure an ownership is: `proof` when the object carries an owner reference to the engine's
 * policy, `strong` when a field manager, label or annotation the engine writes says so, `guess`
 * when only a name the engine would choose does.
 */
export type Certainty = "proof" | "strong" | "guess";

const RANK: Record<Certainty, number> = { proof: 3, strong: 2, guess: 1 };

/** The more certain of two. */
export function strongest(a: Certainty, b: Certainty): Certainty {
  return RANK[a] >= RANK[b] ? a : b;
}

/** The less certain of two. */
export function weakest(a: Certainty, b: Certainty): Certainty {
  return RANK[a] <= RANK[b] ? a : b;
}

/** An engine policy, as the engine's API names it. */
export interface SourcePolicyRef {
  readonly engine: EngineName;
  /** `group/version`; the engine's preferred version when only a name was seen. */
  readonly apiVersion: string;
  readonly kind: string;
  /** Set for namespaced kinds (Kyverno Policy, Kubewarden AdmissionPolicy, …). */
  readonly namespace?: string;
  readonly name: string;
}

/** Which engine owns an object, how sure that is and why (in words), and what policy it carries. */
export interface EngineOwnership {
  readonly engine: EngineName;
  readonly certainty: Certainty;
  /** One sentence per clue, e.g. `owner reference to ClusterPolicy require-labels`. */
  readonly evidence: readonly string[];
  /** The engine policy the object carries, when it carries exactly one. */
  readonly source?: SourcePolicyRef;
  /** Every engine policy the object is known to carry (a shared Kyverno hook carries several). */
  readonly sources: readonly SourcePolicyRef[];
  /** How sure the source is (it may be weaker than the engine: a name in a labelled config). */
  readonly sourceCertainty?: Certainty;
}

/** The admission objects an engine may own. */
export type OwnedKind =
  | "ValidatingWebhookConfiguration"
  | "MutatingWebhookConfiguration"
  | "ValidatingAdmissionPolicy"
  | "ValidatingAdmissionPolicyBinding"
  | "MutatingAdmissionPolicy"
  | "MutatingAdmissionPolicyBinding";

/** One owned object: a configuration, one hook in it (hook + position), a policy or a binding. */
export interface OwnedObject {
  readonly kind: OwnedKind;
  readonly name: string;
  /** The webhook's name, for a hook inside a configuration. */
  readonly hook?: string;
  /** The webhook's position in its configuration (HookIdentity.position). */
  readonly position?: number;
  readonly ownership: EngineOwnership;
}

/** Identity of a source policy as a string: `engine:apiGroup/kind/namespace/name`. */
export function sourceKey(ref: SourcePolicyRef): string {
  const i = ref.apiVersion.indexOf("/");
  const group = i < 0 ? "" : ref.apiVersion.slice(0, i);
  return `${ref.engine}:${group}/${ref.kind}/${ref.namespace ?? ""}/${ref.name}`;
}

/** How a source policy is named in text: `ClusterPolicy require-labels`, `AdmissionPolicy ns/x`. */
export function describeSource(ref: SourcePolicyRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
}

/** Key of an owned object: `Kind/name`, or `Kind/name#position` for a hook in a configuration. */
export function ownedKey(kind: OwnedKind, name: string, position?: number): string {
  return position === undefined ? `${kind}/${name}` : `${kind}/${name}#${position}`;
}
