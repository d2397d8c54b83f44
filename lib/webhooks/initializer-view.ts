/**
 * Initializer configurations in words, for the Initializers page. Pure. Reference §6.1 and the
 * dynamic admission control design (propagation: the second goal, "a change applies within a
 * bound").
 */
import type { InitializerRule } from "@/lib/admission/historical/initializers";
import { explainGroups, explainVersions } from "./explain";

/** One v1alpha1 resources entry in words: `*` is every resource, subresources are never allowed. */
function explainInitializerResource(r: string): string {
  if (r === "*") return "every resource (initializers never see subresources)";
  if (r.includes("/"))
    return `${r}: invalid — initializer rules may not name subresources, the apiserver refuses it`;
  return r;
}

/** A whole v1alpha1 rule as one sentence (initializers act on CREATE only). */
export function explainInitializerRule(r: InitializerRule): string {
  const res = r.resources ?? [];
  return `creation of ${res.length === 0 ? "no resource (never matches)" : res.map(explainInitializerResource).join("; ")} in ${explainGroups(r.apiGroups)} at ${explainVersions(r.apiVersions)}`;
}

/**
 * What failure means for an initializer: the served v1alpha1 API has no failurePolicy and no
 * timeout. The design's `failurePolicy` (Ignore: drop the initializer after a default 5 s
 * timeout; "for 1.7, only Ignore is allowed") lived only in the internal type.
 */
export const INITIALIZER_FAILURE_NOTE =
  "v1alpha1 has no failurePolicy or timeout field: an object waits in metadata.initializers.pending until its initializer controller removes its name. While the head of the list is not removed, the object stays uninitialized (hidden from list and watch without ?includeUninitialized=true) and the creating request waits until the apiserver's request timeout. The design's fail-open policy (drop the initializer after a default 5 s timeout; 1.7 allowed only Ignore) was never part of the served API.";

/** How a configuration change reaches requests, per API version that serves the kind. */
export interface PropagationNote {
  servedBy: string;
  text: string;
  /** Only true where the kind is served as custom resources (no apiserver plugin reads it). */
  customResourcesOnly?: boolean;
}

export const PROPAGATION: Record<
  "initializers" | "externalAdmissionHooks" | "v1beta1Webhooks",
  PropagationNote[]
> = {
  initializers: [
    {
      servedBy: "Kubernetes 1.7–1.13 (admissionregistration.k8s.io/v1alpha1)",
      text: "Each apiserver re-reads all InitializerConfigurations every second. After 5 s without a successful read it refuses every create the Initializers plugin would handle (the configuration is not ready), so a change applies within about a second, and a configuration the apiserver cannot read blocks creation rather than skipping initializers.",
    },
    {
      servedBy: "this cluster (custom resources)",
      customResourcesOnly: true,
      text: "Served here as custom resources for review and editing: no apiserver plugin reads them, so a change is stored but nothing acts on it.",
    },
  ],
  externalAdmissionHooks: [
    {
      servedBy: "Kubernetes 1.7–1.8 (admissionregistration.k8s.io/v1alpha1)",
      text: "Each apiserver re-reads all ExternalAdmissionHookConfigurations every second and refuses requests after 5 s without a successful read; hooks are called in parallel and every call error failed open in 1.7, whatever failurePolicy said.",
    },
    {
      servedBy: "Kubernetes 1.9 and later (webhook configurations)",
      text: "Webhook configurations are cached from a watch: a change reaches each apiserver as soon as its watch delivers it, with no periodic re-read.",
    },
    {
      servedBy: "this cluster (custom resources)",
      customResourcesOnly: true,
      text: "Served here as custom resources for review and editing: no apiserver plugin calls these hooks.",
    },
  ],
  v1beta1Webhooks: [
    {
      servedBy: "Kubernetes 1.9–1.21 (admissionregistration.k8s.io/v1beta1)",
      text: "Webhook configurations are cached from a watch: a change reaches each apiserver as soon as its watch delivers it, with no periodic re-read; from 1.16 the same objects are also served as v1 (one stored object, two views).",
    },
    {
      servedBy: "this cluster (custom resources)",
      customResourcesOnly: true,
      text: "Served here as custom resources for review and editing: no apiserver plugin calls these hooks.",
    },
  ],
};
