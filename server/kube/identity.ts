import "server-only";
import { setMaxListeners } from "node:events";
import { KubeApiError } from "@/lib/k8s/errors";
import { contextCookie } from "@/lib/http/cookies";
import { CONTEXT_HEADER, CONTEXT_PARAM } from "@/lib/http/context";
import { loadKubeConfig, resolveContext } from "./config";
import { kubeClientFor, type KubeClient } from "./client";

/**
 * The identity a request acts as: the kubeconfig context it names itself — the
 * `x-portcullis-context` header, or `?context=` on an EventSource URL (which cannot send
 * headers). A request that names none, or one the kubeconfig lacks, is refused: it never runs
 * as a default. (A per-user sign-in will resolve here too.)
 */
export function contextOf(request: Request): string {
  const named =
    request.headers.get(CONTEXT_HEADER) ??
    new URL(request.url).searchParams.get(CONTEXT_PARAM) ??
    undefined;
  if (!named) {
    throw new KubeApiError({
      status: 400,
      reason: "ContextRequired",
      message: `name the kubeconfig context to act as (header ${CONTEXT_HEADER}, or ?${CONTEXT_PARAM}= on a stream); the dashboard never picks one for you`,
      cluster: "",
    });
  }
  const names = loadKubeConfig()
    .getContexts()
    .map((c) => c.name);
  if (!names.includes(named)) {
    throw new KubeApiError({
      status: 400,
      reason: "UnknownContext",
      message: `no context "${named.slice(0, 253)}" in the kubeconfig`,
      cluster: "",
    });
  }
  return named;
}

/**
 * The context a new tab starts in (server-rendered pages): the one the context cookie remembers
 * when the kubeconfig still has it, else PORTCULLIS_DEFAULT_CONTEXT, else the current context.
 * Pages render with it; the tab then names it on every API request.
 */
export function startingContext(headers: Pick<Headers, "get">): string {
  return resolveContext(contextCookie(headers.get("cookie")));
}

/** A KubeClient acting as the request's identity. */
export function clientFor(request: Request): KubeClient {
  // One request's signal is handed to every apiserver call it makes, often many at once (an
  // access review per resource and verb, a probe per hook): each adds an abort listener.
  setMaxListeners(256, request.signal);
  return kubeClientFor(contextOf(request));
}
