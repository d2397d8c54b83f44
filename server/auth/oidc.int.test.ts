/**
 * OIDC sign-in against a real issuer and the real apiserver: Dex (tools/dex) on loopback over
 * HTTPS, trusted by the stack's kube-apiserver through its structured authentication
 * configuration, and a shared-mode dashboard configured for it. The sign-in goes through Dex's
 * own login form over HTTP, as a browser would; the session then acts as `oidc:<email>`, so the
 * apiserver's RBAC decides. An ID token issued to another client is refused by the dashboard's
 * verifier, by the apiserver and by the paste-token sign-in; state, PKCE, replay and stale-flow
 * attacks are refused; OIDC sign-in shares the token sign-in's rate limit; a short-lived ID
 * token ends its session; and nothing secret reaches the dashboard's log.
 */
import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fetchDex,
  OIDC_CLIENT_ID,
  OIDC_PASSWORD,
  OIDC_USERS,
  OTHER_CLIENT_ID,
  startOidcIssuer,
  type OidcIssuer,
} from "../../cluster/harness/oidc-issuer";
import { startSharedDashboard, type SharedDashboard } from "../../cluster/harness/shared-dashboard";
import { auditedUpdates, readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { freePorts } from "../../cluster/ports";
import { sessionCookieOf, sharedCall, type SharedCall } from "../../test/shared-api";
import type { Kube } from "../../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../../test/e2e/webhooks-helpers";
import { JwksCache, OidcError, verifyIdToken } from "@/lib/auth/oidc";
import { OIDC_FLOW_COOKIE, SESSION_COOKIE } from "@/lib/auth/session-cookie";

const V = "validatingwebhookconfigurations" as const;
const VWC = `/api/resources/admissionregistration.k8s.io/v1/${V}`;
const ALICE = OIDC_USERS[0].email;
const ALICE_USER = `oidc:${ALICE}`;

let stack: StackInfo;
let kube: Kube;

/** Everything secret the tests saw, for the log check at the end. */
const seen = new Set<string>();

interface Env {
  issuer: OidcIssuer;
  d: SharedDashboard;
}

/** Starts Dex and a shared-mode dashboard signing in through it. */
async function startEnv(
  opts: { idTokenLifetime?: string; impersonate?: boolean } = {},
): Promise<Env> {
  const { idTokenLifetime, impersonate } = opts;
  const [port] = (await freePorts(1)) as [number];
  const redirectUrl = `http://127.0.0.1:${port}/sign-in/oidc`;
  const issuer = await startOidcIssuer(stack, { redirectUrl, idTokenLifetime });
  try {
    const d = await startSharedDashboard(stack, { port, env: issuer.dashboardEnv, impersonate });
    for (const s of [...d.secrets, issuer.clientSecret, issuer.otherClientSecret]) seen.add(s);
    return { issuer, d };
  } catch (e) {
    await issuer.stop();
    throw e;
  }
}

function cookieValue(setCookie: string, name: string): string | undefined {
  for (const part of setCookie.split(/,(?=\s*__Host-)/)) {
    const first = part.trim().split(";")[0] ?? "";
    if (first.startsWith(`${name}=`)) return first.slice(name.length + 1);
  }
  return undefined;
}

/** Every Set-Cookie header of a response. */
function setCookies(res: Response): string[] {
  return res.headers.getSetCookie();
}

interface Started {
  authorizationUrl: string;
  /** The Cookie header carrying the flow cookie. */
  flowCookie: string;
}

async function start(e: Env, from: string): Promise<Started> {
  const res = await sharedCall(e.d.url, "POST", "/api/session/oidc", {
    headers: { "x-forwarded-for": from },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const { authorizationUrl } = (await res.json()) as { authorizationUrl: string };
  const set = setCookies(res).find((c) => c.startsWith(`${OIDC_FLOW_COOKIE}=`)) ?? "";
  return { authorizationUrl, flowCookie: set.split(";")[0] ?? "" };
}

/**
 * Goes through Dex's login as a browser does: the authorization URL redirects to the password
 * connector's form; the form is posted with the user's email and password; Dex redirects to
 * `redirect_uri?code=…&state=…`. Returns that query.
 */
async function loginAtDex(
  e: Env,
  authorizationUrl: string,
  email: string = ALICE,
  password: string = OIDC_PASSWORD,
): Promise<{ code: string; state: string }> {
  const ca = readFileSync(e.issuer.caFile, "utf8");
  let url = authorizationUrl;
  for (let hops = 0; ; hops++) {
    const res = await fetchDex(url, ca);
    if (res.status === 302 || res.status === 303) {
      url = new URL(String(res.headers.location), url).toString();
      expect(hops).toBeLessThan(5);
      continue;
    }
    expect(res.status, res.body.slice(0, 300)).toBe(200);
    // Dex's own login form: a login field and a password field.
    expect(res.body).toMatch(/<input[^>]+name="login"/);
    expect(res.body).toMatch(/<input[^>]+name="password"[^>]+type="password"/);
    break;
  }
  const posted = await fetchDex(url, ca, {
    body: new URLSearchParams({ login: email, password }).toString(),
  });
  expect(posted.status, posted.body.slice(0, 300)).toBe(303);
  const back = new URL(String(posted.headers.location));
  const code = back.searchParams.get("code") ?? "";
  const state = back.searchParams.get("state") ?? "";
  expect(code).not.toBe("");
  seen.add(code);
  return { code, state };
}

function callback(e: Env, flowCookie: string | undefined, body: unknown, from: string) {
  return sharedCall(e.d.url, "POST", "/api/session/oidc/callback", {
    cookie: flowCookie,
    body,
    headers: { "x-forwarded-for": from },
  });
}

/** A whole sign-in; returns the callback's response. */
async function signIn(e: Env, from: string, email: string = ALICE): Promise<Response> {
  const s = await start(e, from);
  const q = await loginAtDex(e, s.authorizationUrl, email);
  return callback(e, s.flowCookie, q, from);
}

async function reasonOf(res: Response): Promise<string> {
  return ((await res.clone().json()) as { reason: string }).reason;
}

async function review(token: string): Promise<{ status: number; body: string }> {
  return httpsRequest(`${stack.server}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
    method: "POST",
    ca: readFileSync(stack.caFile),
    token,
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  });
}

beforeAll(() => {
  stack = readStack();
  const ca = readFileSync(stack.caFile);
  kube = {
    request: (method, p, body, user = "admin") =>
      httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens[user] }),
  };
});

describe("OIDC sign-in through Dex", () => {
  let e: Env;
  // The first OIDC test builds Dex when its build is not cached (about 215 CPU-seconds cold).
  beforeAll(async () => {
    e = await startEnv();
  }, 900_000);
  afterAll(async () => {
    await e?.d.stop();
    await e?.issuer.stop();
  });

  it("offers OIDC on the sign-in page", async () => {
    const html = await (await fetch(`${e.d.url}/sign-in`)).text();
    expect(html).toContain("Sign in with OIDC");
  });

  it("signs in through Dex's login form and acts as oidc:<email>: reads, and a write is refused by RBAC", async () => {
    const from = "192.0.2.101";
    const s = await start(e, from);
    // The flow cookie: sealed, HttpOnly, Secure, Lax, ten minutes; the URL carries PKCE S256.
    const setFlow = s.flowCookie;
    expect(setFlow.startsWith(`${OIDC_FLOW_COOKIE}=`)).toBe(true);
    const auth = new URL(s.authorizationUrl);
    expect(auth.origin + auth.pathname).toBe(`${e.issuer.issuer}/auth`);
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("client_id")).toBe(OIDC_CLIENT_ID);
    const state = auth.searchParams.get("state") ?? "";
    expect(state.length).toBeGreaterThanOrEqual(43);
    expect(setFlow).not.toContain(state);

    const q = await loginAtDex(e, s.authorizationUrl);
    expect(q.state).toBe(state);
    const res = await callback(e, s.flowCookie, q, from);
    expect(res.status, await res.clone().text()).toBe(200);
    const info = (await res.json()) as { username: string; signedInWith: string; expires: number };
    expect(info).toMatchObject({ username: ALICE_USER, signedInWith: "oidc" });
    const cookies = setCookies(res);
    const session = cookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? "";
    const attrs = session.split(";").map((a) => a.trim().toLowerCase());
    expect(attrs).toEqual(
      expect.arrayContaining(["path=/", "secure", "httponly", "samesite=strict"]),
    );
    // The flow cookie is spent.
    expect(cookies.find((c) => c.startsWith(`${OIDC_FLOW_COOKIE}=;`))).toMatch(/Max-Age=0/);
    const cookie = session.split(";")[0] ?? "";
    seen.add(cookieValue(session, SESSION_COOKIE) ?? "");
    seen.add(cookieValue(s.flowCookie, OIDC_FLOW_COOKIE) ?? "");

    const who = await sharedCall(e.d.url, "GET", "/api/session", { cookie });
    expect(await who.json()).toMatchObject({ username: ALICE_USER, signedInWith: "oidc" });
    // The session ends with the ID token (Dex issues them for an hour here).
    expect(info.expires).toBeLessThanOrEqual(Date.now() + 3_600_000 + 5_000);
    expect(info.expires).toBeGreaterThan(Date.now() + 3_000_000);

    const name = uniqueName("oidc-rbac");
    const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    try {
      const list = await sharedCall(e.d.url, "GET", VWC, { cookie });
      expect(list.status).toBe(200);
      const items = ((await list.json()) as { items: Array<{ metadata: { name: string } }> }).items;
      expect(items.map((i) => i.metadata.name)).toContain(name);
      const put = await sharedCall(e.d.url, "PUT", `/api/webhooks/${V}/${name}`, {
        cookie,
        body: {
          object: { ...created, webhooks: [{ ...created.webhooks?.[0], timeoutSeconds: 3 }] },
        },
      });
      expect(put.status).toBe(403);
      expect(((await put.json()) as { message: string }).message).toContain(`"${ALICE_USER}"`);
      expect((await getConfig(kube, V, name))?.metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );
    } finally {
      await deleteConfig(kube, V, name);
    }
  });

  it("a user the issuer knows but RBAC does not sees nothing", async () => {
    const res = await signIn(e, "192.0.2.102", OIDC_USERS[1].email);
    expect(res.status, await res.clone().text()).toBe(200);
    const cookie = sessionCookieOf(res);
    const list = await sharedCall(e.d.url, "GET", VWC, { cookie });
    expect(list.status).toBe(403);
  });

  it("a token for another audience is refused by the verifier, the apiserver and the token sign-in", async () => {
    const other = await e.issuer.idToken(ALICE, OTHER_CLIENT_ID);
    const ours = await e.issuer.idToken(ALICE, OIDC_CLIENT_ID);
    seen.add(other);
    seen.add(ours);
    // The dashboard's verifier, with Dex's real key set.
    const ca = readFileSync(e.issuer.caFile, "utf8");
    const jwks = new JwksCache(
      async () => JSON.parse((await fetchDex(`${e.issuer.issuer}/keys`, ca)).body) as unknown,
    );
    const checks = { issuer: e.issuer.issuer, clientId: OIDC_CLIENT_ID, now: Date.now() };
    expect((await verifyIdToken(ours, jwks, checks)).email).toBe(ALICE);
    const refused = await verifyIdToken(other, jwks, checks).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OidcError);
    expect((refused as OidcError).code).toBe("audience");
    // The apiserver trusts the issuer for the dashboard's audience only.
    expect((await review(ours)).status).toBe(201);
    expect((await review(other)).status).toBe(401);
    // Pasted as a bearer token, it is refused too, and no session is made.
    const pasted = await sharedCall(e.d.url, "POST", "/api/session", {
      body: { token: other },
      headers: { "x-forwarded-for": "192.0.2.103" },
    });
    expect(pasted.status).toBe(401);
    expect(pasted.headers.get("set-cookie")).toBeNull();
  });

  it("a code issued to another client is refused at the callback", async () => {
    const from = "192.0.2.104";
    const s = await start(e, from);
    const u = new URL(s.authorizationUrl);
    u.searchParams.set("client_id", OTHER_CLIENT_ID);
    u.searchParams.set("redirect_uri", "http://127.0.0.1:1/callback");
    const q = await loginAtDex(e, u.toString());
    const res = await callback(e, s.flowCookie, q, from);
    expect(res.status).toBe(401);
    expect(await reasonOf(res)).toBe("OidcCodeRefused");
    expect(setCookies(res).some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
  });

  it("refuses a wrong state, a code made for another flow (PKCE), a replay and a missing or altered flow cookie", async () => {
    const from = "192.0.2.105";
    // State mismatch: the flow stays unspent, so the right state still works afterwards.
    const a = await start(e, from);
    const qa = await loginAtDex(e, a.authorizationUrl);
    const wrong = await callback(e, a.flowCookie, { ...qa, state: `${qa.state}x` }, from);
    expect(wrong.status).toBe(400);
    expect(await reasonOf(wrong)).toBe("OidcStateMismatch");
    expect(setCookies(wrong).some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);

    // PKCE: flow B's cookie and state with flow A's code: Dex checks B's verifier against A's
    // challenge and refuses.
    const b = await start(e, from);
    const bState = new URL(b.authorizationUrl).searchParams.get("state") ?? "";
    const swapped = await callback(e, b.flowCookie, { code: qa.code, state: bState }, from);
    expect(swapped.status).toBe(401);
    expect(await reasonOf(swapped)).toBe("OidcCodeRefused");

    // Replay: a completed sign-in's cookie and answer, sent again.
    const c = await start(e, "192.0.2.106");
    const qc = await loginAtDex(e, c.authorizationUrl);
    expect((await callback(e, c.flowCookie, qc, "192.0.2.106")).status).toBe(200);
    const replay = await callback(e, c.flowCookie, qc, "192.0.2.106");
    expect(replay.status).toBe(400);
    expect(await reasonOf(replay)).toBe("OidcFlowReplayed");

    // No flow cookie, or an altered one.
    const d = await start(e, "192.0.2.107");
    const qd = await loginAtDex(e, d.authorizationUrl);
    const none = await callback(e, undefined, qd, "192.0.2.107");
    expect(none.status).toBe(400);
    expect(await reasonOf(none)).toBe("OidcFlowMissing");
    const value = cookieValue(d.flowCookie, OIDC_FLOW_COOKIE) ?? "";
    const flipped = `${value.slice(0, -2)}${value.endsWith("A") ? "B" : "A"}${value.slice(-1)}`;
    const altered = await callback(e, `${OIDC_FLOW_COOKIE}=${flipped}`, qd, "192.0.2.107");
    expect(altered.status).toBe(400);
    expect(await reasonOf(altered)).toBe("OidcFlowMissing");
  });

  it("refuses a flow older than ten minutes", async () => {
    // A flow sealed with the dashboard's own session secret, started eleven minutes ago.
    const dir = mkdtempSync(path.join(os.tmpdir(), "oidc-flow-"));
    writeFileSync(path.join(dir, "secret"), e.d.secrets[1] ?? "");
    process.env.PORTCULLIS_SESSION_SECRET_FILE = path.join(dir, "secret");
    const { sealFlow } = await import("./oidc");
    const flow = {
      state: "s".repeat(43),
      nonce: "n".repeat(43),
      verifier: "v".repeat(64),
      started: Date.now() - 11 * 60_000,
    };
    const res = await callback(
      e,
      `${OIDC_FLOW_COOKIE}=${sealFlow(flow)}`,
      { state: flow.state, code: "x" },
      "192.0.2.108",
    );
    expect(res.status).toBe(400);
    expect(await reasonOf(res)).toBe("OidcFlowExpired");
    // The same, fresh, gets past the flow checks (Dex then refuses the made-up code).
    const fresh = await callback(
      e,
      `${OIDC_FLOW_COOKIE}=${sealFlow({ ...flow, state: "t".repeat(43), started: Date.now() })}`,
      { state: "t".repeat(43), code: "x" },
      "192.0.2.108",
    );
    expect(fresh.status).toBe(401);
    expect(await reasonOf(fresh)).toBe("OidcCodeRefused");
  });

  it("shares the token sign-in's rate limit", async () => {
    const from = "192.0.2.109";
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await callback(e, undefined, { state: "x", code: "y" }, from)).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
    expect(statuses[10]).toBe(429);
    const token = await sharedCall(e.d.url, "POST", "/api/session", {
      body: { token: stack.tokens.viewer },
      headers: { "x-forwarded-for": from },
    });
    expect(token.status).toBe(429);
  });

  it("no token, code or secret appears in the dashboard's log", async () => {
    const log = readFileSync(e.d.logFile, "utf8");
    expect(log.length).toBeGreaterThan(0);
    expect(seen.size).toBeGreaterThan(8);
    for (const secret of [...seen, OIDC_PASSWORD]) {
      if (secret.length < 8) continue;
      expect(log.includes(secret), `a secret of ${secret.length} characters`).toBe(false);
      expect(log.includes(secret.slice(0, 16))).toBe(false);
    }
    expect(log).not.toMatch(/bearer\s+[a-z0-9._-]{8,}/i);
    expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/);
  });
});

describe("an OIDC session ends with its ID token", () => {
  let e: Env;
  beforeAll(async () => {
    // Short, so the test waits little for the expiry; the sign-in and the first read before it
    // take well under a second of it.
    e = await startEnv({ idTokenLifetime: "10s" });
  }, 240_000);
  afterAll(async () => {
    await e?.d.stop();
    await e?.issuer.stop();
  });

  it("is signed out when the ID token expires", async () => {
    const res = await signIn(e, "192.0.2.120");
    expect(res.status, await res.clone().text()).toBe(200);
    const { expires } = (await res.json()) as { expires: number };
    expect(expires - Date.now()).toBeLessThanOrEqual(10_000);
    const cookie = sessionCookieOf(res);
    const o: SharedCall = { cookie };
    expect((await sharedCall(e.d.url, "GET", VWC, o)).status).toBe(200);
    let status = 200;
    while (status === 200 && Date.now() < expires + 10_000) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await sharedCall(e.d.url, "GET", "/api/session", o)).status;
    }
    expect(status).toBe(401);
    // Not before the ID token's expiry.
    expect(Date.now()).toBeGreaterThanOrEqual(expires);
    const after = await sharedCall(e.d.url, "GET", VWC, o);
    expect(after.status).toBe(401);
    expect(await reasonOf(after)).toBe("SessionRequired");
  }, 60_000);
});

describe("OIDC sign-in in impersonation mode", () => {
  let e: Env;
  beforeAll(async () => {
    e = await startEnv({ impersonate: true });
  }, 240_000);
  afterAll(async () => {
    await e?.d.stop();
    await e?.issuer.stop();
  });

  it("acts as oidc:<email> through the service account and keeps the ID token only encrypted", async () => {
    const res = await signIn(e, "192.0.2.130");
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.clone().json()).toMatchObject({
      username: ALICE_USER,
      signedInWith: "oidc",
      via: "impersonation",
    });
    const cookie = sessionCookieOf(res);
    const name = uniqueName("oidc-imp");
    const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    try {
      const list = await sharedCall(e.d.url, "GET", VWC, { cookie });
      expect(list.status).toBe(200);
      // Alice may read, not write: the apiserver decides for the impersonated user, although the
      // service account itself may impersonate anyone.
      const put = await sharedCall(e.d.url, "PUT", `/api/webhooks/${V}/${name}`, {
        cookie,
        body: {
          object: { ...created, webhooks: [{ ...created.webhooks?.[0], timeoutSeconds: 3 }] },
        },
      });
      expect(put.status).toBe(403);
      expect((await getConfig(kube, V, name))?.metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );
      const [write] = await auditedUpdates(stack, name, 1);
      expect(write?.user?.username).toBe("system:serviceaccount:portcullis-shared:dashboard");
      expect(write?.impersonatedUser?.username).toBe(ALICE_USER);
      expect(write?.responseStatus?.code).toBe(403);
    } finally {
      await deleteConfig(kube, V, name);
    }
    const db = new Database(path.join(e.d.dataDir, "decisions.sqlite"), { readonly: true });
    try {
      const rows = db
        .prepare("SELECT username, token FROM portcullis_sessions WHERE username = ?")
        .all(ALICE_USER) as Array<{ token: string | null }>;
      expect(rows.length).toBeGreaterThan(0);
      // Kept to re-validate the session, sealed (iv.tag.ciphertext), never as the JWT itself.
      for (const r of rows) expect(r.token).toMatch(/^[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    } finally {
      db.close();
    }
  });
});
