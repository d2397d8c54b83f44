import "server-only";
import type { KubeClient } from "./client";
import {
  ACCESS_VERBS,
  ADMISSION_RESOURCES,
  WEBHOOK_GROUP,
  type AccessMap,
  type AccessVerb,
  type AdmissionResource,
  type LegacyAccessMap,
} from "@/lib/webhooks/resource-kinds";
import {
  LEGACY_KIND_OF,
  LEGACY_RESOURCES,
  legacyGroupOrAdmission,
  type LegacyResource,
} from "@/lib/k8s/legacy-kinds";
import { legacyGroupFromEnv } from "@/lib/k8s/legacy-group";

interface SelfSubjectAccessReview {
  status?: { allowed?: boolean; denied?: boolean; reason?: string };
}

/** One SelfSubjectAccessReview of the request's identity. */
async function review(
  client: KubeClient,
  spec: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<boolean> {
  const answer = await client.request<SelfSubjectAccessReview>({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec },
    signal,
  });
  return answer.status?.allowed === true;
}

/** Asks the apiserver whether the request's identity may `verb` the resource (name optional). */
export function canI(
  client: KubeClient,
  attrs: { group: string; resource: string; verb: string; name?: string },
  signal?: AbortSignal,
): Promise<boolean> {
  return review(client, { resourceAttributes: attrs }, signal);
}

/** Asks the apiserver whether the request's identity may `verb` a non-resource URL. */
export function canIPath(
  client: KubeClient,
  attrs: { path: string; verb: string },
  signal?: AbortSignal,
): Promise<boolean> {
  return review(client, { nonResourceAttributes: attrs }, signal);
}

/**
 * What the identity may do with the admission kinds the editor writes (webhook configurations,
 * admission policies and bindings): one SelfSubjectAccessReview per (resource, verb). The UI
 * enables controls from this; the apiserver still decides every write.
 */
export async function admissionAccess(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<AccessMap> {
  const pairs = ADMISSION_RESOURCES.flatMap((resource) =>
    ACCESS_VERBS.map((verb) => ({ resource, verb })),
  );
  const answers = await Promise.all(
    pairs.map((p) =>
      canI(client, { group: WEBHOOK_GROUP, resource: p.resource, verb: p.verb }, signal),
    ),
  );
  const out = {} as Record<AdmissionResource, Record<AccessVerb, boolean>>;
  pairs.forEach((p, i) => {
    (out[p.resource] ??= {} as Record<AccessVerb, boolean>)[p.verb] = answers[i] ?? false;
  });
  return out;
}

/**
 * What the identity may do with the historical kinds, asked of the group the dashboard writes
 * them to (server/kube/legacy-admission.ts): one SelfSubjectAccessReview per (kind, verb).
 */
export async function legacyAdmissionAccess(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<LegacyAccessMap> {
  const group = legacyGroupOrAdmission(legacyGroupFromEnv());
  const pairs = LEGACY_RESOURCES.flatMap((r) => ACCESS_VERBS.map((verb) => ({ r, verb })));
  const answers = await Promise.all(
    pairs.map((p) =>
      canI(client, { group, resource: LEGACY_KIND_OF[p.r].plural, verb: p.verb }, signal),
    ),
  );
  const out = {} as Record<LegacyResource, Record<AccessVerb, boolean>>;
  pairs.forEach((p, i) => {
    (out[p.r] ??= {} as Record<AccessVerb, boolean>)[p.verb] = answers[i] ?? false;
  });
  return out;
}
