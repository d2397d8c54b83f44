import "server-only";
import { KubeConfig } from "@kubernetes/client-node";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { SESSION_REQUIRED } from "@/lib/auth/session-cookie";
import { KubeApiError } from "@/lib/k8s/errors";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor, sharedApiserver } from "@/server/kube/config";
import { sessionStore, type Session, type SessionUser } from "./sessions";

/** PORTCULLIS_IMPERSONATE=1: the service account impersonates each user; no user token is kept. */
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
  return new KubeApiError({
    status: 401,
    reason: SESSION_REQUIRED,
    message: "the session has ended (signed out, expired or idle too long): sign in again",
    cluster: "",
  });
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
 * A client acting as the user of session `id`: with the user's own token, or (impersonation
 * mode) the service account impersonating the user. The session is looked up once, when the
 * first request is sent; an ended session fails that request with 401.
 */
export function sessionClient(id: string): KubeClient {
  let headers: Promise<Record<string, string | string[]>> | undefined;
  const auth = () => {
    headers ??= sessionStore()
      .then((store) => store.get(id))
      .then((s) => {
        if (!s) throw sessionEnded();
        return identityHeaders(s);
      });
    return headers;
  };
  const kc = impersonationMode() ? kubeConfigFor(SHARED_CONTEXT) : anonymousConfig();
  return new KubeClient(SHARED_CONTEXT, kc, auth);
}
