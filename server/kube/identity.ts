import "server-only";
import { setMaxListeners } from "node:events";
import { KubeApiError } from "@/lib/k8s/errors";
import { contextCookie } from "@/lib/http/cookies";
import { CONTEXT_HEADER, CONTEXT_PARAM } from "@/lib/http/context";
import { SESSION_REQUIRED, sessionCookie } from "@/lib/auth/session-cookie";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { verifySessionCookie } from "@/server/auth/secret";
import { sessionClient } from "@/server/auth/session-client";
import { sessionStreamOwner } from "@/server/auth/session-streams";
import { isSharedMode, loadKubeConfig, resolveContext } from "./config";
import { kubeClientFor, type KubeClient } from "./client";
import { canI, canIPath } from "./access";
import { InFlight } from "./in-flight";
import type { ResourceRef } from "@/lib/k8s/resources";
import { dashboardError } from "@/lib/api/contract";

/**
 * Shared mode: the session id of the request's signed session cookie. Throws 401 without one;
 * whether the session is still live is checked when its client first calls the apiserver.
 */
export function sessionIdOf(headers: Pick<Headers, "get">): string {
  const value = sessionCookie(headers.get("cookie"));
  const id = value === undefined ? undefined : verifySessionCookie(value);
  if (!id) {
    throw new KubeApiError(
      dashboardError({
        status: 401,
        reason: SESSION_REQUIRED,
        message: "sign in first: the dashboard acts only as a signed-in user",
      }),
    );
  }
  return id;
}

/**
 * The identity a request acts as: the kubeconfig context it names itself — the
 * `x-portcullis-context` header, or `?context=` on an EventSource URL (which cannot send
 * headers). A request that names none, or one the kubeconfig lacks, is refused: it never runs
 * as a default. In shared mode the one context is SHARED_CONTEXT and the request must also carry
 * a signed session cookie (401 otherwise).
 */
export function contextOf(request: Request): string {
  if (isSharedMode()) return sharedContextOf(request);
  const named =
    request.headers.get(CONTEXT_HEADER) ??
    new URL(request.url).searchParams.get(CONTEXT_PARAM) ??
    undefined;
  if (!named) {
    throw new KubeApiError(
      dashboardError({
        status: 400,
        reason: "ContextRequired",
        message: `name the kubeconfig context to act as (header ${CONTEXT_HEADER}, or ?${CONTEXT_PARAM}= on a stream); the dashboard never picks one for you`,
      }),
    );
  }
  const names = loadKubeConfig()
    .getContexts()
    .map((c) => c.name);
  if (!names.includes(named)) {
    throw new KubeApiError(
      dashboardError({
        status: 400,
        reason: "UnknownContext",
        message: `no context "${named.slice(0, 253)}" in the kubeconfig`,
      }),
    );
  }
  return named;
}

function sharedContextOf(request: Request): string {
  sessionIdOf(request.headers);
  const named =
    request.headers.get(CONTEXT_HEADER) ?? new URL(request.url).searchParams.get(CONTEXT_PARAM);
  if (named !== SHARED_CONTEXT) {
    throw new KubeApiError(
      dashboardError({
        status: 400,
        reason: "UnknownContext",
        message: `a shared dashboard serves one context, "${SHARED_CONTEXT}" (header ${CONTEXT_HEADER}, or ?${CONTEXT_PARAM}= on a stream)`,
      }),
    );
  }
  return SHARED_CONTEXT;
}

/**
 * The context a new tab starts in (server-rendered pages): the one the context cookie remembers
 * when the kubeconfig still has it, else PORTCULLIS_DEFAULT_CONTEXT, else the current context.
 * Pages render with it; the tab then names it on every API request.
 */
export function startingContext(headers: Pick<Headers, "get">): string {
  if (isSharedMode()) {
    sessionIdOf(headers);
    return SHARED_CONTEXT;
  }
  return resolveContext(contextCookie(headers.get("cookie")));
}

/**
 * A KubeClient acting as the request's identity: its kubeconfig context, or in shared mode its
 * session's user.
 */
export function clientFor(request: Request): KubeClient {
  // One request's signal is handed to every apiserver call it makes, often many at once (an
  // access review per resource and verb, a probe per hook): each adds an abort listener.
  setMaxListeners(256, request.signal);
  const context = contextOf(request);
  if (isSharedMode()) return sessionClient(sessionIdOf(request.headers));
  return kubeClientFor(context);
}

/**
 * The client that scrapes the apiserver's /metrics for the request. Local mode: the request's
 * own. Shared mode: the dashboard's service account (one scrape shared by all users), after a
 * SelfSubjectAccessReview shows the user may `get /metrics` themselves; 403 otherwise.
 */
export async function metricsClientFor(request: Request): Promise<KubeClient> {
  const client = clientFor(request);
  if (!isSharedMode()) return client;
  if (!(await canIPath(client, { path: "/metrics", verb: "get" }, request.signal))) {
    throw new KubeApiError({
      status: 403,
      reason: "Forbidden",
      message: "you may not get the apiserver's /metrics",
      cluster: client.server,
    });
  }
  return kubeClientFor(SHARED_CONTEXT);
}

/**
 * Before a request is served from the shared watch cache. In local mode the cache's watch runs
 * as the request's own context, so its RBAC already applied. In shared mode it runs as the
 * dashboard's service account, so the user must be allowed to list and watch every collection
 * (cluster-wide) by a SelfSubjectAccessReview of their own; otherwise 403 and nothing is served.
 */
export async function authorizeCollections(
  request: Request,
  refs: readonly ResourceRef[],
): Promise<void> {
  if (!isSharedMode()) return;
  const client = clientFor(request);
  // The same session asking about the same collections at once (its streams reconnecting together
  // after a fault, their rechecks in step) is asked of the apiserver once.
  const key = `${sessionIdOf(request.headers)}\n${refs
    .map((r) => `${r.group}/${r.resource}`)
    .sort()
    .join(" ")}`;
  await collectionChecks.ask(
    key,
    (signal) => mayListAndWatch(client, refs, signal),
    request.signal,
  );
}

/** One session's checks of the same collections while they are in flight. */
const collectionChecks = new InFlight<void>();

/** 403 unless the client's identity may list and watch every one of `refs` (cluster-wide). */
async function mayListAndWatch(
  client: KubeClient,
  refs: readonly ResourceRef[],
  signal: AbortSignal,
): Promise<void> {
  const checks = refs.flatMap((ref) =>
    ["list", "watch"].map(async (verb) => ({
      ref,
      verb,
      allowed: await canI(client, { group: ref.group, resource: ref.resource, verb }, signal),
    })),
  );
  const denied = (await Promise.all(checks)).find((c) => !c.allowed);
  if (denied) {
    throw new KubeApiError({
      status: 403,
      reason: "Forbidden",
      message: `you may not ${denied.verb} ${denied.ref.resource}${denied.ref.group ? `.${denied.ref.group}` : ""} (the apiserver's RBAC for your user)`,
      cluster: client.server,
    });
  }
}

/**
 * Whose stream slots a request's event stream takes (server/http/event-stream.ts caps them): its
 * context's in local mode; in shared mode its session's (a digest of the id), so one user's tabs
 * never use up everyone's.
 */
export function streamOwnerOf(request: Request): string {
  const context = contextOf(request);
  if (!isSharedMode()) return context;
  return sessionStreamOwner(sessionIdOf(request.headers));
}

/**
 * Shared mode: the session an event stream belongs to, so that its end ends the stream
 * (server/auth/session-streams.ts). Local mode: none.
 */
export function streamSessionOf(request: Request): string | undefined {
  return isSharedMode() ? sessionIdOf(request.headers) : undefined;
}

/**
 * Shared mode: the check a live stream of `refs` repeats while open (the session still live, the
 * user still allowed to list and watch them). Local mode needs none: the watch is the context's.
 */
export function collectionsRecheck(
  request: Request,
  refs: readonly ResourceRef[],
): (() => Promise<void>) | undefined {
  if (!isSharedMode()) return undefined;
  return () => authorizeCollections(request, refs);
}
