import "server-only";
import {
  LARGE_BODIES_AT_ONCE,
  LARGE_BODIES_WAITING,
  requestBodyLimit,
  SMALL_BODY_BYTES,
} from "@/lib/http/json-limits";
import {
  decide,
  policyConfigFromEnv,
  SESSIONLESS_ROUTES,
  type PolicyDecision,
} from "@/lib/http/request-policy";
import { contentSecurityPolicy, SECURITY_HEADERS } from "@/lib/http/security-headers";
import { SESSION_REQUIRED, sessionCookie } from "@/lib/auth/session-cookie";
import { dashboardError } from "@/lib/api/contract";
import type { KubeApiErrorBody } from "@/lib/k8s/errors";
import { verifySessionCookie } from "@/server/auth/secret";
import { sessionStore } from "@/server/auth/sessions";
import { countRefusedSignIn, signInBlocked } from "@/server/auth/sign-in";
import { authorizeAuditSender } from "@/server/audit/sink";

/**
 * The front door: decides on a request that carries a body from its head alone, before the
 * server reads a byte of the body. Next.js reads (and copies) every body before proxy.ts or a
 * route runs, so a check made there comes after the cost: twenty strangers sending 3 MB each
 * held /api/health for seconds. scripts/start.mjs serves Next's request handler behind its own
 * HTTP server and asks this module (registered on globalThis by instrumentation.ts, which runs
 * when the server starts, so it is bundled and typed like the routes) about every request with
 * a body:
 *
 * - the request policy (lib/http/request-policy.ts, what proxy.ts applies) first: a body from
 *   another site, or to an unknown host, is refused unread;
 * - a declared length over the route's limit (lib/http/json-limits.ts requestBodyLimit) is 413;
 *   a body sent without one ends one byte past the limit, which the route refuses (413), and
 *   the rest is never read;
 * - shared mode: a sign-in body from an address over the sign-in rate limit is 429; a body to
 *   any other route needs a live session (signed cookie, session in the store: no apiserver
 *   call), else 401; the audit sink's body needs the sink's bearer token, else 401;
 * - a large admitted body waits for one of LARGE_BODIES_AT_ONCE places (its socket unread), so
 *   the bytes being read at once stay bounded and a GET never queues behind them.
 *
 * The routes check everything again as before (server/http/body.ts); the door only makes the
 * refusals cheap.
 */

/** What start.mjs knows of a request before reading its body. */
interface RequestHead {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The peer's address: Next puts it in X-Forwarded-For when the request carries none. */
  remoteAddress?: string;
}

/**
 * Let through: a body sent without a length ends after `limit` + 1 bytes (the route refuses it);
 * `large` ones wait for a place.
 */
interface Admitted {
  admit: true;
  limit: number;
  large: boolean;
}

/** An answer written as is (plain data: no web streams on the way out). */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Refused unread: this answer, then (`close`) the connection closed instead of draining it. */
interface Refused {
  admit: false;
  answer: Answer;
  close: boolean;
}

interface FrontDoor {
  /** Whether the request carries a body (only those are asked about). */
  carriesBody(head: RequestHead): boolean;
  admit(head: RequestHead): Promise<Admitted | Refused>;
  /** The answer when LARGE_BODIES_WAITING large bodies wait already. */
  busy(): Answer;
  largeBodiesAtOnce: number;
  largeBodiesWaiting: number;
}

function header(head: RequestHead, name: string): string | null {
  const v = head.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
}

/** The declared length, undefined when the body is sent without one (chunked). */
function declaredLength(head: RequestHead): number | undefined {
  const v = header(head, "content-length");
  if (v === null || header(head, "transfer-encoding") !== null) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function carriesBody(head: RequestHead): boolean {
  if (header(head, "transfer-encoding") !== null) return true;
  const length = header(head, "content-length");
  return length !== null && length.trim() !== "0";
}

function withHeaders(status: number, headers: Record<string, string>, body: string): Answer {
  const nonce = btoa(crypto.randomUUID());
  const all: Record<string, string> = {
    ...headers,
    "cache-control": "no-store",
    "content-security-policy": contentSecurityPolicy(nonce, process.env.NODE_ENV !== "production"),
  };
  for (const [name, value] of SECURITY_HEADERS) all[name.toLowerCase()] = value;
  return { status, headers: all, body };
}

/** An API error in the routes' shape (KubeApiError's JSON), or plain text off the API. */
function errorAnswer(pathname: string, e: KubeApiErrorBody): Answer {
  const api = pathname === "/api" || pathname.startsWith("/api/");
  const headers: Record<string, string> = api
    ? { "content-type": "application/json" }
    : { "content-type": "text/plain; charset=utf-8" };
  const retry = e.details?.retryAfterSeconds;
  if (retry !== undefined) headers["retry-after"] = String(retry);
  return withHeaders(e.status, headers, api ? JSON.stringify(e) : `${e.message}\n`);
}

function policyAnswer(
  pathname: string,
  decision: Extract<PolicyDecision, { allow: false }>,
): Answer {
  if (decision.redirect) return withHeaders(303, { location: decision.redirect }, "");
  const { status, reason, message } = decision;
  return errorAnswer(pathname, dashboardError({ status, reason, message }));
}

async function liveSessionCookie(cookieHeader: string | null): Promise<boolean> {
  const value = sessionCookie(cookieHeader);
  let id: string | undefined;
  try {
    id = value === undefined ? undefined : verifySessionCookie(value);
  } catch {
    return false; // no usable session secret: nobody is signed in
  }
  if (!id) return false;
  return (await (await sessionStore()).get(id)) !== undefined;
}

async function admit(head: RequestHead): Promise<Admitted | Refused> {
  const method = head.method.toUpperCase();
  const declared = declaredLength(head);
  // A refused body is left unread; a small one is drained (the connection stays usable, and the
  // client reads the answer), a larger one closes the connection.
  const refuse = (answer: Answer): Refused => ({
    admit: false,
    answer,
    close: declared === undefined || declared > SMALL_BODY_BYTES,
  });
  let pathname: string;
  try {
    pathname = new URL(head.url, "http://front-door").pathname;
  } catch {
    return refuse(
      errorAnswer(
        "/api/",
        dashboardError({ status: 400, reason: "BadRequest", message: "the URL is malformed" }),
      ),
    );
  }
  const limit = requestBodyLimit(pathname);
  const config = policyConfigFromEnv(process.env);
  const shared = config.mode === "shared";
  const cookie = header(head, "cookie");
  let signed = false;
  if (shared) {
    try {
      const value = sessionCookie(cookie);
      signed = value !== undefined && verifySessionCookie(value) !== undefined;
    } catch {
      signed = false;
    }
  }
  const decision = decide(
    {
      method,
      pathname,
      host: header(head, "host"),
      origin: header(head, "origin"),
      secFetchSite: header(head, "sec-fetch-site"),
      hasSession: signed,
    },
    config,
  );
  if (!decision.allow) return refuse(policyAnswer(pathname, decision));

  // The address the sign-in rate limit counts, as the route will see it.
  const forwardedFor = header(head, "x-forwarded-for") ?? head.remoteAddress ?? null;
  const signIn = SESSIONLESS_ROUTES.some((r) => r.method === method && r.path === pathname);
  if (shared && signIn) {
    const blocked = signInBlocked(forwardedFor);
    if (blocked) {
      countRefusedSignIn(forwardedFor);
      return refuse(errorAnswer(pathname, blocked.toJSON()));
    }
  }
  // A stranger's body declares its length (the sign-in page's always does): 411 otherwise, so
  // what a stranger sends is never read past its head unless it fits.
  if (shared && signIn && declared === undefined) {
    countRefusedSignIn(forwardedFor);
    return refuse(
      errorAnswer(
        pathname,
        dashboardError({
          status: 411,
          reason: "LengthRequired",
          message: "a sign-in request declares the length of its body (Content-Length)",
        }),
      ),
    );
  }
  if (declared !== undefined && declared > limit) {
    if (shared && signIn) countRefusedSignIn(forwardedFor);
    return refuse(
      errorAnswer(
        pathname,
        dashboardError({
          status: 413,
          reason: "RequestEntityTooLarge",
          message: `request body larger than ${limit} bytes`,
        }),
      ),
    );
  }
  if (method === "POST" && pathname === "/api/audit") {
    const auth = authorizeAuditSender(header(head, "authorization"));
    if (!auth.ok) {
      return refuse(
        errorAnswer(
          pathname,
          dashboardError({
            status: auth.status,
            reason: auth.status === 401 ? "Unauthorized" : "ServiceUnavailable",
            message: auth.message,
          }),
        ),
      );
    }
  } else if (shared && !signIn && !(await liveSessionCookie(cookie))) {
    return refuse(
      errorAnswer(
        pathname,
        dashboardError({
          status: 401,
          reason: SESSION_REQUIRED,
          message: "the session has ended (signed out, expired or idle too long): sign in again",
        }),
      ),
    );
  }
  return {
    admit: true,
    limit,
    large: (declared ?? limit) > SMALL_BODY_BYTES,
  };
}

function busy(): Answer {
  return errorAnswer(
    "/api/",
    dashboardError({
      status: 503,
      reason: "ServiceUnavailable",
      message: "the dashboard is reading as many large request bodies as it takes: try again",
      details: { retryAfterSeconds: 1 },
    }),
  );
}

const FRONT_DOOR = Symbol.for("portcullis.front-door");

/** Registers the front door for scripts/start.mjs (instrumentation.ts, at server start). */
export function installFrontDoor(): void {
  const door: FrontDoor = {
    carriesBody,
    admit,
    busy,
    largeBodiesAtOnce: LARGE_BODIES_AT_ONCE,
    largeBodiesWaiting: LARGE_BODIES_WAITING,
  };
  (globalThis as Record<symbol, unknown>)[FRONT_DOOR] = door;
}
