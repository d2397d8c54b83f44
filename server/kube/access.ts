import "server-only";
import type { KubeClient } from "./client";
import {
  ACCESS_VERBS,
  WEBHOOK_GROUP,
  WEBHOOK_RESOURCES,
  type AccessMap,
  type AccessVerb,
  type WebhookResource,
} from "@/lib/webhooks/kinds";

interface SelfSubjectAccessReview {
  status?: { allowed?: boolean; denied?: boolean; reason?: string };
}

/** Asks the apiserver whether the request's identity may `verb` the resource (name optional). */
export async function canI(
  client: KubeClient,
  attrs: { group: string; resource: string; verb: string; name?: string },
  signal?: AbortSignal,
): Promise<boolean> {
  const review = await client.request<SelfSubjectAccessReview>({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: attrs },
    },
    signal,
  });
  return review.status?.allowed === true;
}

/** Asks the apiserver whether the request's identity may `verb` a non-resource URL. */
export async function canIPath(
  client: KubeClient,
  attrs: { path: string; verb: string },
  signal?: AbortSignal,
): Promise<boolean> {
  const review = await client.request<SelfSubjectAccessReview>({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { nonResourceAttributes: attrs },
    },
    signal,
  });
  return review.status?.allowed === true;
}

/**
 * What the identity may do with webhook configurations: one SelfSubjectAccessReview per
 * (resource, verb). The UI enables controls from this; the apiserver still decides every write.
 */
export async function webhookAccess(client: KubeClient, signal?: AbortSignal): Promise<AccessMap> {
  const pairs = WEBHOOK_RESOURCES.flatMap((resource) =>
    ACCESS_VERBS.map((verb) => ({ resource, verb })),
  );
  const answers = await Promise.all(
    pairs.map((p) =>
      canI(client, { group: WEBHOOK_GROUP, resource: p.resource, verb: p.verb }, signal),
    ),
  );
  const out = {} as Record<WebhookResource, Record<AccessVerb, boolean>>;
  pairs.forEach((p, i) => {
    (out[p.resource] ??= {} as Record<AccessVerb, boolean>)[p.verb] = answers[i] ?? false;
  });
  return out;
}
