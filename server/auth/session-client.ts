import "server-only";
import { KubeConfig } from "@kubernetes/client-node";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { SESSION_REQUIRED } from "@/lib/auth/session-cookie";
import { KubeApiError } from "@/lib/k8s/errors";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor, sharedApiserver } from "@/server/kube/config";
import { selfSubjectReview } from "@/server/kube/admission-state";
import { endSessionStreams } from "./session-streams";
import { sessionStore, type Session, type SessionUser } from "./sessions";
import { dashboardError } from "@/lib/api/contract";

/**
 * PORTCULLIS_IMPERSONATE=1: the service account impersonates each user. The user's token is kept
 * (encrypted, as in plain shared mode) only to re-validate the session; no call acts with it.
 */
export function impersonationMode(): boolean {
  return process.env.PORTCULLIS_IMPERSONATE === "1";
}

/** The apiserver with no credentials of its own: users' bearer tokens are added per request. */
function anonymousConfig(): KubeConfig {
  const a = sharedApiserver();
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: SHARED_CONTEXT, server: a.server, caFile: a.caFile, skipTLSVerify: false }],
    users: [{ name: "user" }],
    contexts: [{ name: SHARED_CONTEXT, cluster: SHARED_CONTEXT, user: "user" }],
    currentContext: SHARED_CONTEXT,
  });
  return kc;
}

/** A client acting with `token` (checking a token at sign-in). */
export function bearerClient(token: string): KubeClient {
  return new KubeClient(SHARED_CONTEXT, anonymousConfig(), async () => ({
    Authorization: `Bearer ${token}`,
  }));
}

function sessionEnded(): KubeApiError {
  return new KubeApiError(
    dashboardError({
      status: 401,
      reason: SESSION_REQUIRED,
      message: "the session has ended (signed out, expired or idle too long): sign in again",
    }),
  );
}

/** The headers that make the service account act as `u` (impersonation mode). */
function impersonationHeaders(u: SessionUser): Record<string, string | string[]> {
  return {
    "Impersonate-User": u.username,
    // User and groups only: the deployed role may impersonate users, groups and service accounts
    // and nothing else (deploy/chart), so naming the uid or extras too would be refused.
    ...(u.groups.length > 0 ? { "Impersonate-Group": u.groups } : {}),
  };
}

/** The identity headers a session's requests carry. */
function identityHeaders(s: Session): Record<string, string | string[]> {
  if (impersonationMode()) return impersonationHeaders(s);
  if (!s.token) throw sessionEnded();
  return { Authorization: `Bearer ${s.token}` };
}

/** The service account impersonating `u` (impersonation mode; checking it at sign-in). */
export function impersonatingClient(u: SessionUser): KubeClient {
  return new KubeClient(SHARED_CONTEXT, kubeConfigFor(SHARED_CONTEXT), async () =>
    impersonationHeaders(u),
  );
}

/**
 * How long an impersonation-mode session is trusted between re-validations
 * (PORTCULLIS_SESSION_REVALIDATE_SECONDS, default 30). Every write re-validates at once.
 */
function revalidateMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env["PORTCULLIS_SESSION_REVALIDATE_SECONDS"]);
  return Number.isFinite(s) && s > 0 ? s * 1000 : 30_000;
}

// When each session (by id) was last re-validated on this replica, and re-validations running.
const g = globalThis as typeof globalThis & {
  portcullisValidated?: Map<string, number>;
  portcullisValidating?: Map<string, Promise<boolean>>;
};
const validated = (g.portcullisValidated ??= new Map<string, number>());
const validating = (g.portcullisValidating ??= new Map<string, Promise<boolean>>());

/** Whether the apiserver still accepts the session's own credential as the same user. */
async function stillValid(s: Session): Promise<boolean> {
  // A session made before its credential was kept cannot be re-validated: it ends.
  if (!s.token) return false;
  try {
    const review = await selfSubjectReview(bearerClient(s.token), AbortSignal.timeout(10_000));
    return review.status?.userInfo?.username === s.username;
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 401) return false;
    throw e; // the apiserver could not say: the request fails, the session stays
  }
}

/**
 * The live session `id`, or undefined when it has ended. The session is re-validated with the
 * user's own credential (a SelfSubjectReview made with the user's token) when it was last
 * validated more than revalidateMs() ago; in impersonation mode also before every write
 * (`write`), because the dashboard's own identity makes every call there and the apiserver never
 * sees the user's credential. (In plain shared mode every call is made with the user's token, so
 * the apiserver checks it each time; the interval still ends a session that only holds streams,
 * which the shared watch cache serves as the dashboard.) A credential the apiserver no longer
 * accepts (the service account deleted, the token revoked or expired) ends the session and every
 * stream it holds.
 */
export async function liveSession(
  id: string,
  opts: { write?: boolean } = {},
  now = Date.now(),
): Promise<Session | undefined> {
  let s: Session | undefined;
  try {
    s = await (await sessionStore()).get(id, now);
  } catch (e) {
    throw sessionStoreUnavailable(e);
  }
  if (!s) {
    validated.delete(id);
    return undefined;
  }
  const last = validated.get(id) ?? s.created;
  // A write in plain shared mode is made with the user's token: the apiserver checks it then.
  const force = opts.write === true && impersonationMode();
  if (!force && now - last < revalidateMs()) return s;
  let running = validating.get(id);
  if (!running) {
    running = stillValid(s).finally(() => validating.delete(id));
    validating.set(id, running);
  }
  if (await running) {
    validated.set(id, Date.now());
    if (validated.size > 100_000) validated.clear();
    return s;
  }
  validated.delete(id);
  await (await sessionStore()).delete(id);
  endSessionStreams(id);
  return undefined;
}

/**
 * The session store (the decisions' database) could not be read: 503 naming it. Thrown where a
 * request's apiserver call looks its session up, it would otherwise be taken for the apiserver's
 * own transport error ("cannot reach the apiserver … .s.PGSQL.5432").
 */
function sessionStoreUnavailable(e: unknown): KubeApiError {
  return new KubeApiError(
    dashboardError({
      status: 503,
      reason: "ServiceUnavailable",
      message: `the session store (the dashboard's database) cannot be read, so the session cannot be checked: ${e instanceof Error ? e.message : String(e)}`,
    }),
  );
}

/**
 * A client acting as the user of session `id`: with the user's own token, or (impersonation
 * mode) the service account impersonating the user. The session is looked up once, when the
 * first request is sent (and, in impersonation mode, again before the first write, re-validated:
 * liveSession); an ended session fails that request with 401.
 */
export function sessionClient(id: string): KubeClient {
  let headers: Promise<Record<string, string | string[]>> | undefined;
  let writeChecked: Promise<Record<string, string | string[]>> | undefined;
  const lookup = (write: boolean) =>
    liveSession(id, { write }).then((s) => {
      if (!s) throw sessionEnded();
      return identityHeaders(s);
    });
  const auth = ({ method }: { method: string }) => {
    if (impersonationMode() && !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase())) {
      writeChecked ??= lookup(true);
      return writeChecked;
    }
    headers ??= lookup(false);
    return headers;
  };
  const kc = impersonationMode() ? kubeConfigFor(SHARED_CONTEXT) : anonymousConfig();
  return new KubeClient(SHARED_CONTEXT, kc, auth);
}
