import "server-only";
import { clientAddress, RateLimiter } from "@/lib/auth/rate-limit";
import { bearerTokenExpiry } from "@/lib/auth/token-expiry";
import { IMPERSONATION_REFUSED, INVALID_TOKEN, SESSION_REQUIRED } from "@/lib/auth/session-cookie";
import { KubeApiError } from "@/lib/k8s/errors";
import { isSharedMode } from "@/server/kube/config";
import { selfSubjectReview, type SelfSubjectReview } from "@/server/kube/admission-state";
import { sessionIdOf } from "@/server/kube/identity";
import { signSessionId } from "./secret";
import {
  bearerClient,
  impersonatingClient,
  impersonationMode,
  liveSession,
} from "./session-client";
import { endSessionStreams } from "./session-streams";
import { sessionStore, type Session, type SessionUser } from "./sessions";
import { dashboardError } from "@/lib/api/contract";

/**
 * Sign-in attempts per client address per minute, and over all addresses (a backstop). On
 * globalThis: the routes and the front door (server/http/front-door.ts, loaded by
 * instrumentation.ts) are bundled apart and must count in the same windows.
 */
const g = globalThis as typeof globalThis & {
  portcullisSignInLimits?: { perAddress: RateLimiter; overall: RateLimiter };
};
const { perAddress, overall } = (g.portcullisSignInLimits ??= {
  perAddress: new RateLimiter(10, 60_000),
  overall: new RateLimiter(300, 60_000),
});

/** The 429 of a sign-in attempt over the limit. */
function tooManySignIns(wait: number): KubeApiError {
  return new KubeApiError(
    dashboardError({
      status: 429,
      reason: "TooManyRequests",
      message: `too many sign-in attempts: try again in ${wait} s`,
      details: { retryAfterSeconds: wait },
    }),
  );
}

/**
 * Before anything reads a sign-in body (the front door): the 429 an attempt from this address
 * would get now, without counting it (the route counts it once admitted), or undefined.
 */
export function signInBlocked(
  forwardedFor: string | null,
  now = Date.now(),
): KubeApiError | undefined {
  const address = clientAddress(forwardedFor);
  const wait = Math.max(
    perAddress.blockedForSeconds(address, now),
    overall.blockedForSeconds("*", now),
  );
  return wait > 0 ? tooManySignIns(wait) : undefined;
}

/**
 * Counts a sign-in attempt the front door refused (over the limit, or its body too large): it
 * never reaches the route, which counts the others.
 */
export function countRefusedSignIn(forwardedFor: string | null, now = Date.now()): void {
  const address = clientAddress(forwardedFor);
  perAddress.attempt(address, now);
  overall.attempt("*", now);
}

function notShared(): KubeApiError {
  return new KubeApiError(
    dashboardError({
      status: 404,
      reason: "NotFound",
      message:
        "this dashboard runs in local mode (the kubeconfig's contexts): there is no sign-in; PORTCULLIS_MODE=shared turns it on",
    }),
  );
}

/** Requests already counted: a request is one attempt, however many steps count it. */
const counted = new WeakSet<Request>();

/**
 * Counts one sign-in attempt (any method) from the request's client address; throws 429 when the
 * address, or all addresses together, are over their limit. The limit is on attempts, not
 * failures: a right token waits too. The body reader counts the attempt before it reads the
 * body (server/http/body.ts); counting the same request again changes nothing.
 */
export function countSignInAttempt(request: Request, now = Date.now()): void {
  if (counted.has(request)) return; // counted (and let through) already
  counted.add(request);
  const address = clientAddress(request.headers.get("x-forwarded-for"));
  if (!perAddress.attempt(address, now) || !overall.attempt("*", now)) {
    const wait = Math.max(
      perAddress.retryAfterSeconds(address, now),
      overall.retryAfterSeconds("*", now),
    );
    throw tooManySignIns(wait);
  }
}

/**
 * Whether `token` can be sent as `Authorization: Bearer <token>` and be read back as itself:
 * printable ASCII with no space. A control character (CR LF, NUL), a space or a non-ASCII
 * character (invalid UTF-8 arrives as U+FFFD) is either refused by Node before it leaves or cut
 * short by the apiserver (bearertoken.go ends the token at the first space).
 */
function wellFormedBearer(token: string): boolean {
  return /^[\x21-\x7e]+$/.test(token);
}

/** The user's own input, refused before it is sent anywhere; the token is never echoed. */
function malformedToken(): KubeApiError {
  return new KubeApiError(
    dashboardError({
      status: 400,
      reason: "BadRequest",
      message:
        "the token is malformed: a bearer token is printable ASCII with no spaces, and this one holds a control character, a space or a non-ASCII character",
    }),
  );
}

/**
 * Who the apiserver says `token` is (a SelfSubjectReview made with it). A token it does not
 * accept is a 401 with `refused` as the message; the token never appears in an error.
 */
export async function reviewBearer(
  token: string,
  signal: AbortSignal,
  refused = "the apiserver does not accept this token",
): Promise<SessionUser> {
  if (!wellFormedBearer(token)) throw malformedToken();
  let review: SelfSubjectReview;
  try {
    review = await selfSubjectReview(bearerClient(token), signal);
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 401) {
      throw new KubeApiError({
        status: 401,
        reason: INVALID_TOKEN,
        message: refused,
        cluster: e.cluster,
      });
    }
    throw e;
  }
  const info = review.status?.userInfo;
  if (!info?.username) {
    throw new KubeApiError(
      dashboardError({
        status: 502,
        reason: "BadResponse",
        message: "the apiserver's SelfSubjectReview named no user",
      }),
    );
  }
  return {
    username: info.username.slice(0, 1024),
    uid: (info.uid ?? "").slice(0, 1024),
    groups: (info.groups ?? []).slice(0, 256).map((g) => g.slice(0, 1024)),
  };
}

/**
 * In impersonation mode, checks that the dashboard's service account may act as `user` before a
 * session is made for them: a SelfSubjectReview through the Impersonate-* headers every later
 * call carries. A refusal (e.g. a service-account user, when the role grants impersonate on users
 * and groups only) is a 403 that says what to grant, instead of a session whose every call fails.
 */
export async function confirmImpersonation(user: SessionUser, signal: AbortSignal): Promise<void> {
  if (!impersonationMode()) return;
  try {
    await selfSubjectReview(impersonatingClient(user), signal);
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 403) {
      throw new KubeApiError({
        status: 403,
        reason: IMPERSONATION_REFUSED,
        message: `the apiserver accepts this token (user "${user.username}"), but the dashboard's service account may not act as that user: ${e.message}`,
        cluster: e.cluster,
      });
    }
    throw e;
  }
}

/** Throws 404 unless the dashboard runs in shared mode. */
export function requireSharedMode(): void {
  if (!isSharedMode()) throw notShared();
}

/**
 * Signs in with a Kubernetes bearer token: the apiserver says whose it is (a SelfSubjectReview
 * made with it), and a session is created for that user. The token is kept only server-side,
 * encrypted (none at all in impersonation mode). Returns the signed cookie value. Rate limited
 * per client address; the token never appears in an error or a log line.
 */
export async function signInWithToken(
  token: string,
  request: Request,
): Promise<{ cookie: string; user: SessionUser }> {
  requireSharedMode();
  const now = Date.now();
  countSignInAttempt(request, now);
  const user = await reviewBearer(token, request.signal);
  await confirmImpersonation(user, request.signal);
  const store = await sessionStore();
  // A session made with a token that says when it expires ends with it (kept or not).
  // Kept in impersonation mode too, encrypted: it re-validates the session (liveSession).
  const id = await store.create(user, token, now, {
    expires: bearerTokenExpiry(token),
  });
  return { cookie: signSessionId(id), user };
}

/** The request's live session (401 when it has none, or it has ended). */
export async function authorizeSession(
  request: Request,
): Promise<{ id: string; session: Session }> {
  if (!isSharedMode()) throw notShared();
  const id = sessionIdOf(request.headers);
  const session = await liveSession(id);
  if (!session) {
    throw new KubeApiError(
      dashboardError({
        status: 401,
        reason: SESSION_REQUIRED,
        message: "the session has ended (signed out, expired or idle too long): sign in again",
      }),
    );
  }
  return { id, session };
}

/** Ends the request's session, and every event stream it holds open on this replica. */
export async function signOut(id: string): Promise<void> {
  await (await sessionStore()).delete(id);
  endSessionStreams(id);
}
