/**
 * /api/resources and /api/watch: the collections the dashboard reads (a Kubernetes List as the
 * apiserver answers it) and their live changes.
 */
import type { KubeList, KubeObjectLike } from "./kube-list";
import { route } from "./contract";

/**
 * Lists a collection as the request's identity, as a Kubernetes List (`core` for the core
 * group's segment: lib/k8s/resources.ts refToString).
 */
export const listCollectionRoute = route<KubeList>()({
  method: "GET",
  path: "/api/resources/[group]/[version]/[resource]",
});

/** A message of /api/watch (the SSE event's data). */
export type LiveMessage<T extends KubeObjectLike = KubeObjectLike> = { collection: string } & (
  | { type: "SYNC"; resourceVersion: string; items: T[] }
  /** Instead of a first SYNC when the browser said it holds this resourceVersion (`?rv=`). */
  | { type: "CURRENT"; resourceVersion: string }
  | { type: "ADDED" | "MODIFIED" | "DELETED"; object: T }
  | { type: "ERROR"; error: { status: number; reason: string; message: string } }
);

/**
 * Server-Sent Events of LiveMessage for the collections named (`r=group/version/resource`,
 * repeated; `rv=`, one per `r`, the resourceVersion the browser holds).
 */
export const watchRoute = route<LiveMessage>()({ method: "GET", path: "/api/watch" });
