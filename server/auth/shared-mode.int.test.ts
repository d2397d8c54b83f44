/**
 * Shared mode against the real control plane: a second dashboard process (PORTCULLIS_MODE=shared)
 * beside the stack's local one. Every route under app/api without a session gets 401 (health,
 * sign-in and the audit sink excepted); a signed-in user acts as themselves, so the apiserver's
 * RBAC decides (each refusal is followed by a read from the apiserver proving nothing changed);
 * the shared watch cache serves no one whose RBAC would not list it; sign-out ends the session;
 * sign-in is rate limited; and no token or key reaches the dashboard's log.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, REPO_ROOT, type StackInfo } from "../../cluster/harness/stack";
import {
  admin,
  SHARED_NAMESPACE,
  startSharedDashboard,
  type SharedDashboard,
} from "../../cluster/harness/shared-dashboard";
import { httpsRequest } from "../../cluster/https-json";
import { sessionCookieOf, sharedCall, type SharedCall } from "../../test/shared-api";
import { apiserverRefuses } from "../../test/token-revocation";
import type { Kube } from "../../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../../test/e2e/webhooks-helpers";
import { apiRoutes } from "../../test/api-routes";
import Database from "better-sqlite3";
import { policyHeaders } from "../../test/api-headers";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { SESSION_COOKIE } from "@/lib/auth/session-cookie";

const V = "validatingwebhookconfigurations" as const;
/** The dashboard's session re-validation interval here (30 s by default). */
const REVALIDATE_S = 3;
const VWC = `/api/resources/admissionregistration.k8s.io/v1/${V}`;

let stack: StackInfo;
let kube: Kube;
let d: SharedDashboard;

beforeAll(async () => {
  stack = readStack();
  const ca = readFileSync(stack.caFile);
  kube = {
    request: (method, path, body, user = "admin") =>
      httpsRequest(`${stack.server}${path}`, { method, body, ca, token: stack.tokens[user] }),
  };
  d = await startSharedDashboard(stack, {
    env: { PORTCULLIS_SESSION_REVALIDATE_SECONDS: String(REVALIDATE_S) },
  });
});
afterAll(async () => {
  await d?.stop();
});

const call = (method: string, p: string, o?: SharedCall) => sharedCall(d.url, method, p, o);

/** Signs in and returns the Cookie header value the browser would send back. */
let signIns = 0;
/** Each from an address of its own unless told: every attempt counts against its address. */
async function signIn(
  token: string,
  headers: Record<string, string> = { "x-forwarded-for": `203.0.113.${++signIns}` },
): Promise<string> {
  const res = await call("POST", "/api/session", { body: { token }, headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return sessionCookieOf(res);
}

function concrete(urlPath: string, name: string): string {
  return urlPath
    .replace("x-group", "admissionregistration.k8s.io")
    .replace("x-version", "v1")
    .replace("x-resource", V)
    .replace("x-name", name)
    .replace("x-id", "1");
}

/** Sign-in bodies whose token Node would refuse in a header, or the apiserver would cut short. */
const MALFORMED: Array<{ name: string; body: string | Blob; from: string }> = [
  ["a control character", "SECRETPART\u0001x"],
  ["CR LF", "SECRETPART\r\nX-Injected: 1"],
  ["NUL", "SECRETPART\u0000x"],
  ["a non-ASCII character", "SECRETPART\u00e9x"],
  ["a space", "SECRETPART x"],
].map(([name, token], i) => ({
  name: name!,
  body: JSON.stringify({ token }),
  from: `192.0.2.${40 + i}`,
}));
MALFORMED.push({
  name: "invalid UTF-8",
  body: new Blob([
    Buffer.from('{"token":"SECRETPART'),
    Uint8Array.from([0xff, 0xfe]),
    Buffer.from('x"}'),
  ]),
  from: "192.0.2.49",
});

const SESSIONLESS = new Set([
  "GET /api/health",
  "HEAD /api/health",
  "POST /api/audit",
  "POST /api/session",
  "POST /api/session/oidc",
  "POST /api/session/oidc/callback",
]);

describe("without a session", () => {
  it("every route under app/api answers 401 and changes nothing, except health, sign-in and the audit sink", async () => {
    const name = uniqueName("shared-401");
    const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    try {
      const routes = apiRoutes();
      expect(routes.length).toBeGreaterThan(20);
      const forged = `${SESSION_COOKIE}=${"A".repeat(43)}.${"B".repeat(43)}`;
      for (const r of routes) {
        const key = `${r.method} ${r.urlPath}`;
        const path = concrete(r.urlPath, name);
        const body =
          r.method === "GET" || r.method === "HEAD"
            ? undefined
            : {
                object: { metadata: { name } },
                uid: created.metadata.uid,
                resourceVersion: created.metadata.resourceVersion,
                newName: `${name}-x`,
              };
        for (const cookie of [undefined, forged]) {
          const res = await call(r.method, path, { cookie, body });
          if (!SESSIONLESS.has(key)) {
            expect(res.status, `${key} (${cookie ? "forged cookie" : "no cookie"})`).toBe(401);
          }
        }
      }
      // The exempt ones are served without a session — each by its own rules.
      expect((await call("GET", "/api/health")).status).toBe(200);
      const audit = await fetch(`${d.url}/api/audit`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${stack.auditToken}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items: [] }),
      });
      expect(audit.status).toBe(200);
      const wrong = await call("POST", "/api/session", { body: { token: "not-a-token" } });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { message: string }).message).toContain("does not accept");
      expect(wrong.headers.get("set-cookie")).toBeNull();

      const after = await getConfig(kube, V, name);
      expect(after?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(await getConfig(kube, V, `${name}-x`)).toBeUndefined();
    } finally {
      await deleteConfig(kube, V, name);
    }
  });

  it("a page load goes to the sign-in page", async () => {
    const res = await fetch(`${d.url}/webhooks`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location") ?? "", d.url).pathname).toBe("/sign-in");
    expect((await fetch(`${d.url}/sign-in`)).status).toBe(200);
  });
});

describe("signed in", () => {
  it("sets a __Host- cookie that is HttpOnly, Secure and SameSite=Strict, and never returns the token", async () => {
    const res = await call("POST", "/api/session", { body: { token: stack.tokens.viewer } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(stack.tokens.viewer);
    expect(JSON.parse(text)).toMatchObject({ username: "viewer", via: "token" });
    const set = res.headers.get("set-cookie") ?? "";
    expect(set.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    const attrs = set.split(";").map((a) => a.trim().toLowerCase());
    expect(attrs).toEqual(
      expect.arrayContaining(["path=/", "secure", "httponly", "samesite=strict"]),
    );
    expect(attrs.some((a) => a.startsWith("domain="))).toBe(false);
    expect(set).not.toContain(stack.tokens.viewer);
  });

  it("a viewer reads but cannot write (403, object unchanged); an editor can", async () => {
    const name = uniqueName("shared-rbac");
    const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    try {
      const viewer = await signIn(stack.tokens.viewer);
      const list = await call("GET", VWC, { cookie: viewer });
      expect(list.status).toBe(200);
      const items = ((await list.json()) as { items: Array<{ metadata: { name: string } }> }).items;
      expect(items.map((i) => i.metadata.name)).toContain(name);

      const stored = await getConfig(kube, V, name);
      const changed = {
        ...stored,
        webhooks: [{ ...stored?.webhooks?.[0], timeoutSeconds: 3 }],
      };
      const put = await call("PUT", `/api/webhooks/${V}/${name}`, {
        cookie: viewer,
        body: { object: changed },
      });
      expect(put.status).toBe(403);
      expect(((await put.json()) as { message: string }).message).toContain('"viewer"');
      // A client-supplied Impersonate-* header changes nothing: the write is still the viewer's.
      const impersonating = await call("PUT", `/api/webhooks/${V}/${name}`, {
        cookie: viewer,
        body: { object: changed },
        headers: { "Impersonate-User": "admin", "Impersonate-Group": "system:masters" },
      });
      expect(impersonating.status).toBe(403);
      expect((await getConfig(kube, V, name))?.metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );

      const editor = await signIn(stack.tokens.editor);
      const ok = await call("PUT", `/api/webhooks/${V}/${name}`, {
        cookie: editor,
        body: { object: changed },
      });
      expect(ok.status, await ok.clone().text()).toBe(200);
      const after = await getConfig(kube, V, name);
      expect(after?.webhooks?.[0]?.timeoutSeconds).toBe(3);
    } finally {
      await deleteConfig(kube, V, name);
    }
  });

  it("a user whose RBAC lists nothing gets nothing from the shared watch cache that holds it", async () => {
    const name = uniqueName("shared-cache");
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      // The editor's live stream makes the service account's shared watch hold the collection.
      const editor = await signIn(stack.tokens.editor);
      const stream = await call("GET", `/api/watch?r=admissionregistration.k8s.io/v1/${V}`, {
        cookie: editor,
      });
      expect(stream.status).toBe(200);
      reader = stream.body?.getReader();
      // What arrives in one read is up to the transport: a reader slower than the server gets
      // the greeting and the snapshot holding the configuration in one chunk.
      const decoder = new TextDecoder();
      let seen = "";
      while (!seen.includes(name)) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        seen += decoder.decode(chunk.value, { stream: true });
      }
      expect(seen).toContain("connected");
      expect(seen).toContain(name);
      const health = (await (await call("GET", "/api/health")).json()) as {
        upstreamWatches: number;
      };
      expect(health.upstreamWatches).toBeGreaterThan(0);

      // The user exists (a service account) but is granted nothing.
      const nobody = await signIn(d.nobodyToken);
      const who = (await (await call("GET", "/api/session", { cookie: nobody })).json()) as {
        username: string;
      };
      expect(who.username).toBe("system:serviceaccount:portcullis-shared:nobody");
      const watch = await call("GET", `/api/watch?r=admissionregistration.k8s.io/v1/${V}`, {
        cookie: nobody,
      });
      expect(watch.status).toBe(403);
      expect(await watch.text()).not.toContain(name);
      const list = await call("GET", VWC, { cookie: nobody });
      expect(list.status).toBe(403);
      expect(await list.text()).not.toContain(name);
      const health2 = await call("GET", "/api/admission-health", { cookie: nobody });
      expect(health2.status).toBe(403);
    } finally {
      // Closed whatever happened, so stopping the dashboard does not wait on an open stream.
      await reader?.cancel().catch(() => undefined);
      await deleteConfig(kube, V, name);
    }
  });

  it("sign-out deletes the session: its cookie gets 401 afterwards", async () => {
    const cookie = await signIn(stack.tokens.editor);
    expect((await call("GET", VWC, { cookie })).status).toBe(200);
    const out = await call("DELETE", "/api/session", { cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    for (const path of [VWC, "/api/session", "/api/webhooks/access", "/api/overview"]) {
      const res = await call("GET", path, { cookie });
      expect(res.status, path).toBe(401);
    }
  });

  it("serves no test hook, even signed in and started with PORTCULLIS_TEST_HOOKS=1", async () => {
    const cookie = await signIn(stack.tokens.admin);
    for (const [method, path] of [
      ["POST", "/api/test-hooks/metrics-scrape"],
      ["GET", "/api/test-hooks/metrics-scrape"],
      ["GET", "/api/test-hooks/audit-follower"],
    ] as const) {
      const res = await call(method, path, { cookie });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });

  it("sign-out ends the session's open watch and decision streams within a second", async () => {
    const cookie = await signIn(stack.tokens.admin, { "x-forwarded-for": "192.0.2.30" });
    const watch = await call("GET", `/api/watch?r=admissionregistration.k8s.io/v1/${V}`, {
      cookie,
    });
    const decisions = await call("GET", "/api/decisions/stream", { cookie });
    expect(watch.status).toBe(200);
    expect(decisions.status).toBe(200);
    const readToEnd = async (res: Response): Promise<{ text: string; at: number }> => {
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return { text, at: performance.now() };
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    const ends = [readToEnd(watch), readToEnd(decisions)];
    const out = await call("DELETE", "/api/session", { cookie });
    expect(out.status).toBe(200);
    const signedOut = performance.now();
    const [w, dec] = await Promise.all(ends);
    expect(w!.at - signedOut).toBeLessThan(1000);
    expect(dec!.at - signedOut).toBeLessThan(1000);
    // The watch stream says why, as its recheck would.
    expect(w!.text).toContain('"type":"ERROR"');
    expect(w!.text).toContain("SessionRequired");
  });

  it("a session that expires while its streams are open ends them within a second", async () => {
    const cookie = await signIn(stack.tokens.admin, { "x-forwarded-for": "192.0.2.31" });
    const watch = await call("GET", `/api/watch?r=admissionregistration.k8s.io/v1/${V}`, {
      cookie,
    });
    expect(watch.status).toBe(200);
    const reader = (watch.body as ReadableStream<Uint8Array>).getReader();
    // Expire every session now, as the clock would (the row's absolute expiry passes).
    const db = new Database(path.join(d.dataDir, "decisions.sqlite"));
    try {
      db.prepare("UPDATE portcullis_sessions SET expires = ?").run(Date.now());
    } finally {
      db.close();
    }
    const expired = performance.now();
    for (;;) if ((await reader.read()).done) break;
    expect(performance.now() - expired).toBeLessThan(1000);
    expect((await call("GET", "/api/session", { cookie })).status).toBe(401);
  });

  it("a revoked user's open stream ends within the re-validation interval", async () => {
    // A service account allowed to watch (the test dashboard's own read role), then deleted.
    const name = uniqueName("revoked-s");
    await admin(stack, "POST", `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts`, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name },
    });
    await admin(stack, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "portcullis-shared-test-dashboard",
      },
      subjects: [{ kind: "ServiceAccount", name, namespace: SHARED_NAMESPACE }],
    });
    try {
      const issued = await admin(
        stack,
        "POST",
        `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts/${name}/token`,
        { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
      );
      const token = (JSON.parse(issued.body) as { status: { token: string } }).status.token;
      const cookie = await signIn(token);
      const watch = await call("GET", `/api/watch?r=admissionregistration.k8s.io/v1/${V}`, {
        cookie,
      });
      expect(watch.status).toBe(200);
      const reader = (watch.body as ReadableStream<Uint8Array>).getReader();
      let ended = 0;
      const reading = (async () => {
        for (;;) if ((await reader.read()).done) return (ended = performance.now());
      })();
      await admin(
        stack,
        "DELETE",
        `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts/${name}`,
      );
      // The apiserver caches a token it accepted for up to 10 s: from when it refuses it.
      const refused = await apiserverRefuses(stack, token);
      await reading;
      expect(ended - refused).toBeLessThan(REVALIDATE_S * 1000 + 1000);
    } finally {
      await admin(
        stack,
        "DELETE",
        `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`,
      );
    }
  }, 60_000);

  it("stream slots are per session: one user's 32 open streams leave others theirs", async () => {
    const watch = `/api/watch?r=admissionregistration.k8s.io/v1/${V}`;
    // Its own client address, so this test's sign-ins do not count against the others'.
    const from = { "x-forwarded-for": "192.0.2.20" };
    const editor = await signIn(stack.tokens.editor, from);
    const viewer = await signIn(stack.tokens.viewer, from);
    const open: Response[] = [];
    try {
      for (let i = 0; i < 32; i++) {
        const res = await call("GET", watch, { cookie: editor });
        expect(res.status, `stream ${i + 1}`).toBe(200);
        open.push(res);
      }
      const over = await call("GET", watch, { cookie: editor });
      expect(over.status).toBe(429);
      const other = await call("GET", watch, { cookie: viewer });
      expect(other.status).toBe(200);
      open.push(other);
    } finally {
      await Promise.all(open.map((r) => r.body?.cancel()));
    }
  });

  it("sign-in is rate limited per client address", async () => {
    const from = { "x-forwarded-for": "192.0.2.7" };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await call("POST", "/api/session", {
        body: { token: `wrong-${i}` },
        headers: from,
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Even the right token waits: the limit is on attempts, not failures.
    const right = await call("POST", "/api/session", {
      body: { token: stack.tokens.viewer },
      headers: from,
    });
    expect(right.status).toBe(429);
    // Another address is not affected.
    await signIn(stack.tokens.viewer, { "x-forwarded-for": "192.0.2.8" });
  });

  it.each(MALFORMED.map((m) => [m.name, m] as const))(
    "a token holding %s is refused as malformed (400), never sent",
    async (_name, m) => {
      const res = await fetch(`${d.url}/api/session`, {
        method: "POST",
        headers: {
          ...policyHeaders(SHARED_CONTEXT),
          "content-type": "application/json",
          "x-forwarded-for": m.from,
        },
        body: m.body,
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { reason: string; message: string };
      expect(body.reason).toBe("BadRequest");
      expect(body.message).toMatch(/^the token is malformed/);
      expect(body.message).not.toContain("SECRETPART");
      expect(res.headers.get("set-cookie")).toBeNull();
    },
  );

  it("a body from a signed-out session is refused (401) before it is parsed", async () => {
    const cookie = await signIn(stack.tokens.editor, { "x-forwarded-for": "192.0.2.32" });
    expect((await call("DELETE", "/api/session", { cookie })).status).toBe(200);
    const deep = `{"object":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    for (const p of ["/api/predict/dry-run", "/api/policies/try"]) {
      const res = await fetch(`${d.url}${p}`, {
        method: "POST",
        headers: { ...policyHeaders(SHARED_CONTEXT), "content-type": "application/json", cookie },
        body: deep,
      });
      expect(res.status, p).toBe(401);
      expect(((await res.json()) as { reason: string }).reason).toBe("SessionRequired");
    }
    // A live session gets the nesting refused, not a 500.
    const live = await signIn(stack.tokens.editor, { "x-forwarded-for": "192.0.2.33" });
    const res = await fetch(`${d.url}/api/policies/try`, {
      method: "POST",
      headers: {
        ...policyHeaders(SHARED_CONTEXT),
        "content-type": "application/json",
        cookie: live,
      },
      body: deep,
    });
    expect(res.status).toBe(400);
  });

  /**
   * Sends a POST's head with `Expect: 100-continue` and waits: "continue" when the server asks
   * for the body (then `body` is sent and the answer read), else the answer it gave unread.
   */
  function askFirst(
    p: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<{ continued: boolean; status: number }> {
    return new Promise((resolve, reject) => {
      let continued = false;
      const req = httpRequest(`${d.url}${p}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", expect: "100-continue" },
      });
      req.on("continue", () => {
        continued = true;
        req.end(body);
      });
      req.on("response", (res) => {
        res.resume();
        resolve({ continued, status: res.statusCode ?? 0 });
        if (!continued) req.destroy();
      });
      req.on("error", reject);
      req.flushHeaders();
    });
  }

  it("the front door answers from the head, before asking for the body", async () => {
    const h = { ...policyHeaders(SHARED_CONTEXT) };
    // Too large to sign in with, declared: refused before a byte is sent.
    expect(
      await askFirst(
        "/api/session",
        { ...h, "content-length": "3000000", "x-forwarded-for": "192.0.2.40" },
        "",
      ),
    ).toEqual({ continued: false, status: 413 });
    // No session, or a signed-out one: 401 before the body.
    const signedOut = await signIn(stack.tokens.viewer, { "x-forwarded-for": "192.0.2.41" });
    expect((await call("DELETE", "/api/session", { cookie: signedOut })).status).toBe(200);
    for (const cookie of [undefined, signedOut]) {
      expect(
        await askFirst(
          "/api/predict/dry-run",
          { ...h, "content-length": "2", ...(cookie ? { cookie } : {}) },
          "{}",
        ),
      ).toEqual({ continued: false, status: 401 });
    }
    // From another site: refused by the request policy, unread.
    expect(
      await askFirst(
        "/api/predict/dry-run",
        { ...h, "sec-fetch-site": "cross-site", "content-length": "2" },
        "{}",
      ),
    ).toEqual({ continued: false, status: 403 });
    // A live session is asked for its body, and the route answers it.
    const live = await signIn(stack.tokens.viewer, { "x-forwarded-for": "192.0.2.42" });
    const admitted = await askFirst(
      "/api/predict/dry-run",
      { ...h, "content-length": "2", cookie: live },
      "{}",
    );
    expect(admitted.continued).toBe(true);
    expect(admitted.status).toBe(400);
  });

  it("reads one large body at a time; small bodies and GETs do not wait for it", async () => {
    const live = await signIn(stack.tokens.viewer, { "x-forwarded-for": "192.0.2.44" });
    const size = 1_000_000;
    /** A POST of `size` bytes sent once the server asks for them (Expect: 100-continue). */
    function large() {
      let asked!: () => void;
      const continued = new Promise<void>((r) => (asked = r));
      let isAsked = false;
      const req = httpRequest(`${d.url}/api/predict/dry-run`, {
        method: "POST",
        headers: {
          ...policyHeaders(SHARED_CONTEXT),
          "content-type": "application/json",
          cookie: live,
          "content-length": String(size),
          expect: "100-continue",
        },
      });
      const status = new Promise<number>((resolve, reject) => {
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
      });
      req.on("continue", () => {
        isAsked = true;
        asked();
      });
      req.flushHeaders();
      return { req, continued, status, asked: () => isAsked };
    }
    const first = large();
    await first.continued;
    first.req.write(Buffer.alloc(size / 2, 0x20)); // half of it: its read is not over
    const second = large();
    // A small body and a GET are answered meanwhile; the second large body is not asked for.
    expect(
      await askFirst(
        "/api/predict/dry-run",
        { ...policyHeaders(SHARED_CONTEXT), "content-length": "2", cookie: live },
        "{}",
      ),
    ).toEqual({ continued: true, status: 400 });
    expect((await fetch(`${d.url}/api/health`)).status).toBe(200);
    expect(second.asked()).toBe(false);
    // Once the first is read, the second is asked for its body.
    first.req.end(Buffer.alloc(size / 2, 0x20));
    expect(await first.status).toBe(400);
    await second.continued;
    second.req.end(Buffer.alloc(size, 0x20));
    expect(await second.status).toBe(400);
  });

  it("a body sent without a length is cut off where it passes the route's limit", async () => {
    const live = await signIn(stack.tokens.editor, { "x-forwarded-for": "192.0.2.43" });
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        // 64 MiB at most: the server closes the connection at 3 MiB (what it has not read by
        // then fills the two sockets' buffers, a few MiB more).
        if (sent >= 64 * 1024 * 1024) return c.close();
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const outcome = await fetch(`${d.url}/api/predict/dry-run`, {
      method: "POST",
      headers: {
        ...policyHeaders(SHARED_CONTEXT),
        "content-type": "application/json",
        cookie: live,
      },
      body,
      duplex: "half",
    } as RequestInit).then(
      (r) => r.status,
      () => 0,
    );
    // The connection closed under it (0), or whatever answer got out first was a refusal.
    expect([0, 413]).toContain(outcome);
    expect(sent).toBeLessThan(24 * 1024 * 1024);
    // The dashboard is fine: the session still works.
    expect((await call("GET", "/api/session", { cookie: live })).status).toBe(200);
  });

  it("reads no hostile body: 20 senders of 3 MB bodies are refused from their heads while health answers", async () => {
    /** Asks health, answer after answer, while `more()` says so; counts the answers. */
    const askHealth = async (more: () => boolean, answers: { n: number }) => {
      while (more()) {
        const res = await fetch(`${d.url}/api/health`);
        await res.arrayBuffer();
        expect(res.status).toBe(200);
        answers.n++;
      }
    };
    /**
     * Bytes the dashboard's process has read through read(2) and its kin (sockets included;
     * node reads TCP streams with read(2)), from /proc.
     */
    const bytesRead = () => {
      const io = readFileSync(`/proc/${d.pid}/io`, "utf8");
      return Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
    };
    const signedOut = await signIn(stack.tokens.viewer, { "x-forwarded-for": "192.0.2.34" });
    expect((await call("DELETE", "/api/session", { cookie: signedOut })).status).toBe(200);
    // Sent from a process of their own, so this one only times health: 20 senders at once, each
    // sending 3 MB of nested JSON again and again until told to stop, to sign-in as strangers
    // and to a parsing route with a signed-out session, half with a declared length and half
    // streamed without one (so only the bytes themselves can say it is too large).
    const sender = spawn(
      process.execPath,
      [
        "-e",
        `
        const [url, cookie, headers] = JSON.parse(process.argv[1]);
        const depth = 1_500_000;
        const hostile = Buffer.from('{"token":' + "[".repeat(depth) + "]".repeat(depth) + "}");
        let stopping = false;
        process.stdin.on("data", () => (stopping = true)).on("end", () => (stopping = true));
        const streamed = () =>
          new ReadableStream({
            start(c) {
              for (let o = 0; o < hostile.length; o += 65536) c.enqueue(hostile.subarray(o, o + 65536));
              c.close();
            },
          });
        async function send(i) {
          while (!stopping) {
            const chunked = i % 4 >= 2;
            const status = await fetch(url + (i % 2 === 0 ? "/api/session" : "/api/predict/dry-run"), {
              method: "POST",
              headers: {
                ...headers,
                "content-type": "application/json",
                "x-forwarded-for": "198.51.100." + i,
                ...(i % 2 === 0 ? {} : { cookie }),
              },
              body: chunked ? streamed() : hostile,
              ...(chunked ? { duplex: "half" } : {}),
            }).then(
              async (r) => (await r.arrayBuffer(), r.status),
              () => 0,
            );
            process.stdout.write(status + "\\n");
          }
        }
        process.stdout.write("sending\\n");
        Promise.all(Array.from({ length: 20 }, (_, i) => send(i))).then(() => process.stdout.write("done\\n"));
        `,
        JSON.stringify([d.url, signedOut, policyHeaders(SHARED_CONTEXT)]),
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    const exited = new Promise<void>((r) => sender.once("exit", () => r()));
    let out = "";
    let changed: () => void = () => undefined;
    sender.stdout.setEncoding("utf8");
    sender.stdout.on("data", (c: string) => {
      out += c;
      changed();
    });
    const lines = () => out.split("\n").filter(Boolean);
    const answered = () =>
      lines()
        .filter((l) => /^[0-9]+$/.test(l))
        .map(Number);
    /** Resolves when the sender has written something `ok` accepts. */
    const until = (ok: () => boolean) =>
      new Promise<void>((r) => {
        changed = () => ok() && r();
        changed();
      });
    await until(() => out.includes("sending"));
    // Health, asked again and again while the bodies arrive: at least 40 hostile bodies answered
    // (two from each sender) and 30 health answers, whichever comes last.
    const before = bytesRead();
    const health = { n: 0 };
    try {
      await askHealth(() => answered().length < 40 || health.n < 30, health);
    } finally {
      sender.stdin.end();
    }
    await exited;
    const read = bytesRead() - before;
    const statuses = answered();
    // Refused from their heads: too large (413), a stranger's body without a length (411), no
    // session (401), over the sign-in limit (429), or the connection closed under a body the
    // server would not read (0).
    expect(
      statuses.every((s) => [0, 401, 411, 413, 429].includes(s)),
      statuses.join(),
    ).toBe(true);
    // The front door (scripts/start.mjs asking server/http/front-door.ts) decides on the headers
    // and never parses a refused body: the server reads what arrives with each request's head
    // (about 45 KiB a request here), a small part of the 3 MB bodies sent (over 120 MB in all).
    const sentInBodies = statuses.length * 3_000_000;
    expect(read, `${read} bytes read for ${statuses.length} hostile requests`).toBeLessThan(
      sentInBodies / 10,
    );
  });

  it("no token or key appears in the dashboard's log", async () => {
    // The tests above signed in, read, wrote and were refused; the log holds what that printed.
    const log = readFileSync(d.logFile, "utf8");
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [...d.secrets, stack.tokens.viewer, stack.tokens.editor, d.nobodyToken]) {
      expect(log.includes(secret)).toBe(false);
      expect(log.includes(secret.slice(0, 16))).toBe(false);
    }
    expect(log).not.toMatch(/bearer\s+[a-z0-9._-]{8,}/i);
    expect(log).not.toContain("SECRETPART");
  });
});

describe("npm start", () => {
  function start(env: Record<string, string>): { status: number | null; stderr: string } {
    const res = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts/start.mjs")], {
      env: { ...process.env, PORT: "1", ...env },
      encoding: "utf8",
      timeout: 10_000,
    });
    return { status: res.status, stderr: res.stderr };
  }

  it("refuses shared mode without a session secret of at least 32 bytes, and an unknown mode", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-secret-"));
    const short = path.join(dir, "short");
    writeFileSync(short, "too-short\n");
    for (const secret of [undefined, short, path.join(dir, "missing")]) {
      const r = start({
        PORTCULLIS_MODE: "shared",
        PORTCULLIS_HOST: "0.0.0.0",
        ...(secret ? { PORTCULLIS_SESSION_SECRET_FILE: secret } : {}),
      });
      expect(r.status, String(secret)).toBe(2);
      expect(r.stderr).toContain("PORTCULLIS_SESSION_SECRET_FILE");
    }
    const bad = start({ PORTCULLIS_MODE: "sharde" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("PORTCULLIS_MODE");
  });
});
