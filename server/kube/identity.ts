import "server-only";
import { resolveContext } from "./config";
import { kubeClientFor, type KubeClient } from "./client";

/** Cookie holding the kubeconfig context a browser acts as. */
export const CONTEXT_COOKIE = "portcullis-context";

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...rest] = part.trim().split("=");
    if (k === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/**
 * The identity a request acts as: today a kubeconfig context chosen with the context switcher
 * (cookie) or the `x-portcullis-context` header; a per-user sign-in will resolve here too.
 */
export function contextOf(request: Request): string {
  return contextOfHeaders(request.headers);
}

/** The identity of a request from its headers (for server components, via next/headers). */
export function contextOfHeaders(headers: Pick<Headers, "get">): string {
  const requested =
    headers.get("x-portcullis-context") ?? cookieValue(headers.get("cookie"), CONTEXT_COOKIE);
  return resolveContext(requested);
}

/** A KubeClient acting as the request's identity. */
export function clientFor(request: Request): KubeClient {
  return kubeClientFor(contextOf(request));
}
