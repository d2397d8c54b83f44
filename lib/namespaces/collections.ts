/** Which collections the namespaces pages read, and how they become an AdmissionSnapshot (pure). */
import { servedKinds } from "@/lib/k8s/served-kinds";
import type { ResourceRef } from "@/lib/k8s/resources";
import type { AdmissionSnapshot } from "@/lib/admission/snapshot";

export const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces" };
export const SERVICES: ResourceRef = { group: "", version: "v1", resource: "services" };
export const ENDPOINT_SLICES: ResourceRef = {
  group: "discovery.k8s.io",
  version: "v1",
  resource: "endpointslices",
};

/** Snapshot fields by the admission resource they are read from. */
export const SNAPSHOT_FIELD: Readonly<Record<string, keyof AdmissionSnapshot>> = {
  mutatingwebhookconfigurations: "mutatingWebhookConfigurations",
  validatingwebhookconfigurations: "validatingWebhookConfigurations",
  validatingadmissionpolicies: "validatingAdmissionPolicies",
  validatingadmissionpolicybindings: "validatingAdmissionPolicyBindings",
  mutatingadmissionpolicies: "mutatingAdmissionPolicies",
  mutatingadmissionpolicybindings: "mutatingAdmissionPolicyBindings",
};

/** Namespaces, then every served webhook configuration, policy and binding kind. */
export function matrixCollections(
  apis: Array<{ version: string; resources: Array<{ name: string; kind: string }> }>,
): ResourceRef[] {
  return [
    NAMESPACES,
    ...servedKinds(apis).flatMap((k) =>
      k.readAt && SNAPSHOT_FIELD[k.known.resource] ? [k.readAt] : [],
    ),
  ];
}

/**
 * A Namespace reduced to what the namespaces pages read (name, labels, creation time): at 10,000
 * namespaces the rest is most of the bytes. Live events then replace items whole.
 */
export function namespaceEssentials(item: { metadata?: Record<string, unknown> }): {
  metadata: Record<string, unknown>;
} {
  const m = item.metadata ?? {};
  return {
    metadata: { name: m["name"], creationTimestamp: m["creationTimestamp"], labels: m["labels"] },
  };
}
