import "server-only";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import {
  authorizationUrl,
  JwksCache,
  OidcError,
  parseDiscovery,
  parseScopes,
  pkceChallenge,
  randomUrlSafe,
  verifyIdToken,
  type OidcDiscovery,
} from "@/lib/auth/oidc";
import {
  OIDC_FLOW_MAX_AGE_MS,
  oidcFlowCookie,
  SESSION_MAX_AGE_MS,
} from "@/lib/auth/session-cookie";
import { KubeApiError } from "@/lib/k8s/errors";
import { decryptToken, encryptToken, signSessionId } from "./secret";
import { sessionStore, type SessionUser } from "./sessions";
import {
  confirmImpersonation,
  countSignInAttempt,
  requireSharedMode,
  reviewBearer,
} from "./sign-in";
import { dashboardError } from "@/lib/api/contract";

/** Shared mode's OIDC sign-in, from PORTCULLIS_OIDC_*. */
interface OidcConfig {
  issuer: string;
  clientId: string;
  /** Where the issuer sends the browser back: this dashboard's /sign-in/oidc page. */
  redirectUrl: string;
  clientSecretFile?: string;
  /** CA bundle (PEM) that the issuer's TLS certificate chains to, when not a public CA. */
  caFile?: string;
  scopes: string[];
}

function envError(message: string): KubeApiError {
  return new KubeApiError(dashboardError({ status: 500, reason: "OidcMisconfigured", message }));
}

/**
 * The OIDC configuration, or undefined when PORTCULLIS_OIDC_ISSUER_URL is unset (OIDC sign-in
 * off). A half-made configuration is an error naming what is missing.
 */
function oidcConfig(env: NodeJS.ProcessEnv = process.env): OidcConfig | undefined {
  const issuer = env.PORTCULLIS_OIDC_ISSUER_URL?.trim();
  if (!issuer) return undefined;
  const clientId = env.PORTCULLIS_OIDC_CLIENT_ID?.trim();
  const redirectUrl = env.PORTCULLIS_OIDC_REDIRECT_URL?.trim();
  if (!clientId || !redirectUrl) {
    throw envError(
      "OIDC sign-in needs PORTCULLIS_OIDC_CLIENT_ID and PORTCULLIS_OIDC_REDIRECT_URL besides PORTCULLIS_OIDC_ISSUER_URL",
    );
  }
  let redirect: URL;
  try {
    redirect = new URL(redirectUrl);
  } catch {
    throw envError("PORTCULLIS_OIDC_REDIRECT_URL is not a URL");
  }
  if (redirect.pathname !== "/sign-in/oidc") {
    throw envError("PORTCULLIS_OIDC_REDIRECT_URL must name this dashboard's /sign-in/oidc page");
  }
  return {
    issuer,
    clientId,
    redirectUrl,
    clientSecretFile: env.PORTCULLIS_OIDC_CLIENT_SECRET_FILE || undefined,
    caFile: env.PORTCULLIS_OIDC_CA_FILE || undefined,
    scopes: parseScopes(env.PORTCULLIS_OIDC_SCOPES),
  };
}

/** True when OIDC sign-in is configured (the sign-in page then offers it). */
export function oidcConfigured(): boolean {
  try {
    return oidcConfig() !== undefined;
  } catch {
    // Misconfigured: offered, so that trying it says what is wrong.
    return true;
  }
}

function requireConfig(): OidcConfig {
  requireSharedMode();
  const c = oidcConfig();
  if (!c) {
    throw new KubeApiError(
      dashboardError({
        status: 404,
        reason: "NotFound",
        message: "OIDC sign-in is not configured (PORTCULLIS_OIDC_ISSUER_URL)",
      }),
    );
  }
  return c;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;
const TIMEOUT_MS = 10_000;

interface IssuerResponse {
  status: number;
  body: unknown;
}

/**
 * One request to the issuer (discovery, keys, token endpoint) with the configured CA, a timeout
 * and a size limit. Errors name the URL and what went wrong, never a request body.
 */
function issuerRequest(
  c: OidcConfig,
  url: string,
  opts: { form?: Record<string, string>; basicAuth?: string } = {},
): Promise<IssuerResponse> {
  const u = new URL(url);
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const send = u.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      u,
      {
        method: body === undefined ? "GET" : "POST",
        headers: {
          accept: "application/json",
          ...(body !== undefined
            ? {
                "content-type": "application/x-www-form-urlencoded",
                "content-length": Buffer.byteLength(body),
              }
            : {}),
          ...(opts.basicAuth ? { authorization: `Basic ${opts.basicAuth}` } : {}),
        },
        ...(u.protocol === "https:" && c.caFile
          ? { ca: readFileSync(/*turbopackIgnore: true*/ c.caFile) }
          : {}),
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (d: Buffer) => {
          size += d.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(
              new Error(`the issuer's answer from ${u.origin}${u.pathname} is too large`),
            );
            return;
          }
          chunks.push(d);
        });
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`the issuer did not answer ${u.origin}${u.pathname} in time`)),
    );
    req.on("error", (e) =>
      reject(
        new KubeApiError(
          dashboardError({
            status: 502,
            reason: "OidcIssuerUnreachable",
            message: `cannot reach the OIDC issuer at ${u.origin}${u.pathname}: ${e.message}`,
          }),
        ),
      ),
    );
    req.end(body);
  });
}

interface IssuerState {
  key: string;
  discovery: Promise<OidcDiscovery>;
  fetched: number;
  jwks?: JwksCache;
}

const g = globalThis as typeof globalThis & { portcullisOidcIssuer?: IssuerState };
/** The discovery document is read again after this long (a failed read at once). */
const DISCOVERY_MAX_AGE_MS = 3_600_000;

/** The issuer's discovery document, cached per process; a failure is the issuer's (502). */
async function discovery(c: OidcConfig): Promise<OidcDiscovery> {
  try {
    return await cachedDiscovery(c);
  } catch (e) {
    if (!(e instanceof OidcError)) throw e;
    throw new KubeApiError(
      dashboardError({
        status: 502,
        reason: "OidcDiscoveryFailed",
        message: `cannot use the OIDC issuer ${c.issuer}: ${e.message}`,
      }),
    );
  }
}

function cachedDiscovery(c: OidcConfig): Promise<OidcDiscovery> {
  const key = `${c.issuer}\n${c.caFile ?? ""}`;
  const now = Date.now();
  const cur = g.portcullisOidcIssuer;
  if (cur?.key === key && now - cur.fetched < DISCOVERY_MAX_AGE_MS) return cur.discovery;
  const url = `${c.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const state: IssuerState = {
    key,
    fetched: now,
    discovery: issuerRequest(c, url).then((res) => {
      if (res.status !== 200) {
        throw new OidcError("discovery", `the issuer's discovery document answered ${res.status}`);
      }
      return parseDiscovery(res.body, c.issuer);
    }),
    jwks: cur?.key === key ? cur.jwks : undefined,
  };
  g.portcullisOidcIssuer = state;
  state.discovery.catch(() => {
    if (g.portcullisOidcIssuer === state) g.portcullisOidcIssuer = undefined;
  });
  return state.discovery;
}

/** The issuer's key set, kept per process (refetched for unknown key ids, rate limited). */
function jwksOf(c: OidcConfig, d: OidcDiscovery): JwksCache {
  const state = g.portcullisOidcIssuer;
  if (state?.jwks) return state.jwks;
  const cache = new JwksCache(async () => {
    const res = await issuerRequest(c, d.jwksUri);
    if (res.status !== 200) {
      throw new OidcError("unknown-key", `the issuer's key set answered ${res.status}`);
    }
    return res.body;
  });
  if (state) state.jwks = cache;
  return cache;
}

/** What the flow cookie holds, sealed. */
export interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  /** Epoch ms when the sign-in started. */
  started: number;
}

const FLOW_BINDING = "portcullis oidc flow";

/** The flow cookie's value for `f`: AES-GCM with the session secret, bound to its purpose. */
export function sealFlow(f: Flow): string {
  return encryptToken(JSON.stringify(f), FLOW_BINDING);
}

function openFlow(sealed: string): Flow | undefined {
  try {
    const f = JSON.parse(decryptToken(sealed, FLOW_BINDING)) as Partial<Flow>;
    if (
      typeof f.state === "string" &&
      typeof f.nonce === "string" &&
      typeof f.verifier === "string" &&
      typeof f.started === "number"
    ) {
      return f as Flow;
    }
  } catch {
    // altered, or sealed with another secret
  }
  return undefined;
}

function flowError(status: 400 | 401, reason: string, message: string): KubeApiError {
  return new KubeApiError(dashboardError({ status, reason, message }));
}

/**
 * Starts an OIDC sign-in: a fresh state, nonce and PKCE verifier, sealed into the flow cookie
 * (the caller sets it), and the issuer's authorization URL to send the browser to.
 */
export async function startOidcSignIn(): Promise<{ authorizationUrl: string; flow: string }> {
  const c = requireConfig();
  const d = await discovery(c);
  const flow: Flow = {
    state: randomUrlSafe(),
    nonce: randomUrlSafe(),
    verifier: randomUrlSafe(48),
    started: Date.now(),
  };
  return {
    authorizationUrl: authorizationUrl({
      endpoint: d.authorizationEndpoint,
      clientId: c.clientId,
      redirectUri: c.redirectUrl,
      scopes: c.scopes,
      state: flow.state,
      nonce: flow.nonce,
      codeChallenge: pkceChallenge(flow.verifier),
    }),
    flow: sealFlow(flow),
  };
}

/** What the issuer's redirect carried, as the /sign-in/oidc page posts it. */
export interface OidcCallback {
  state: string;
  code?: string;
  error?: string;
  errorDescription?: string;
}

const clip = (s: string, n: number) => s.replace(/[^\x20-\x7e]/g, "?").slice(0, n);

/**
 * Completes an OIDC sign-in: checks the flow cookie (present, unaltered, under 10 minutes old,
 * never used before, its state the one the issuer returned), exchanges the code with the PKCE
 * verifier, verifies the ID token (this client's audience, the flow's nonce), asks the apiserver
 * who the ID token is (a SelfSubjectReview made with it), and creates a session that ends with
 * the ID token. Rate limited with the token sign-in. Nothing secret reaches an error or a log.
 */
export async function completeOidcSignIn(
  cb: OidcCallback,
  request: Request,
): Promise<{ cookie: string; user: SessionUser; expires: number }> {
  const c = requireConfig();
  const now = Date.now();
  countSignInAttempt(request, now);
  const sealed = oidcFlowCookie(request.headers.get("cookie"));
  const flow = sealed === undefined ? undefined : openFlow(sealed);
  if (!flow) {
    throw flowError(
      400,
      "OidcFlowMissing",
      "no OIDC sign-in is in progress in this browser (or its cookie was altered): start again from the sign-in page",
    );
  }
  if (now - flow.started > OIDC_FLOW_MAX_AGE_MS || now < flow.started - 60_000) {
    throw flowError(
      400,
      "OidcFlowExpired",
      "this OIDC sign-in took longer than 10 minutes: start again from the sign-in page",
    );
  }
  if (cb.state !== flow.state) {
    throw flowError(
      400,
      "OidcStateMismatch",
      "the issuer's answer belongs to another sign-in (state mismatch): start again from the sign-in page",
    );
  }
  const store = await sessionStore();
  if (!(await store.consumeOidcState(flow.state, flow.started + OIDC_FLOW_MAX_AGE_MS, now))) {
    throw flowError(
      400,
      "OidcFlowReplayed",
      "this OIDC sign-in was already completed once: start again from the sign-in page",
    );
  }
  if (cb.error) {
    throw flowError(
      401,
      "OidcDenied",
      `the issuer refused the sign-in: ${clip(cb.error, 100)}${
        cb.errorDescription ? ` (${clip(cb.errorDescription, 300)})` : ""
      }`,
    );
  }
  if (!cb.code) throw flowError(400, "BadRequest", "the issuer's answer has no code");

  const d = await discovery(c);
  const secret = c.clientSecretFile
    ? readFileSync(/*turbopackIgnore: true*/ c.clientSecretFile, "utf8").trim()
    : undefined;
  const res = await issuerRequest(c, d.tokenEndpoint, {
    form: {
      grant_type: "authorization_code",
      code: cb.code,
      redirect_uri: c.redirectUrl,
      code_verifier: flow.verifier,
      ...(secret === undefined ? { client_id: c.clientId } : {}),
    },
    // client_secret_basic: both parts form-encoded first (RFC 6749 2.3.1).
    basicAuth:
      secret === undefined
        ? undefined
        : Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(secret)}`).toString(
            "base64",
          ),
  });
  const answer = (res.body ?? {}) as Record<string, unknown>;
  if (res.status !== 200) {
    const err = typeof answer.error === "string" ? clip(answer.error, 100) : `HTTP ${res.status}`;
    throw flowError(401, "OidcCodeRefused", `the issuer refused the authorization code: ${err}`);
  }
  const idToken = answer.id_token;
  if (typeof idToken !== "string") {
    throw new KubeApiError(
      dashboardError({
        status: 502,
        reason: "BadResponse",
        message: "the issuer's token response holds no ID token",
      }),
    );
  }
  let exp: number;
  try {
    const claims = await verifyIdToken(idToken, jwksOf(c, d), {
      issuer: c.issuer,
      clientId: c.clientId,
      nonce: flow.nonce,
      now: Date.now(),
    });
    exp = claims.exp * 1000;
  } catch (e) {
    if (e instanceof OidcError) throw flowError(401, "InvalidIdToken", e.message);
    throw e;
  }
  const user = await reviewBearer(
    idToken,
    request.signal,
    "the apiserver does not accept ID tokens from this issuer: configure it to trust the issuer and this client id as an audience (README, shared mode)",
  );
  await confirmImpersonation(user, request.signal);
  const id = await store.create(user, idToken, now, {
    method: "oidc",
    expires: exp,
  });
  return { cookie: signSessionId(id), user, expires: Math.min(exp, now + SESSION_MAX_AGE_MS) };
}
