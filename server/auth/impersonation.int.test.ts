/**
 * Impersonation mode (PORTCULLIS_IMPERSONATE=1) against the real control plane: the dashboard's
 * service account calls the apiserver impersonating the signed-in user (user and groups from the
 * SelfSubjectReview at sign-in), keeps the user's token only encrypted and only to re-validate
 * the session (a revoked user's session ends within the re-validation interval, or at their
 * next write), and never passes on an Impersonate-* header a client sends — although its
 * service account may impersonate anyone.
 */
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditedUpdates, readStack, type StackInfo } from "../../cluster/harness/stack";
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

const V = "validatingwebhookconfigurations" as const;
/** The dashboard's re-validation interval here (30 s by default). */
const REVALIDATE_S = 3;

let stack: StackInfo;
let kube: Kube;
let d: SharedDashboard;

beforeAll(async () => {
  stack = readStack();
  const ca = readFileSync(stack.caFile);
  kube = {
    request: (method, p, body, user = "admin") =>
      httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens[user] }),
  };
  d = await startSharedDashboard(stack, {
    impersonate: true,
    env: { PORTCULLIS_SESSION_REVALIDATE_SECONDS: String(REVALIDATE_S) },
  });
});
afterAll(async () => {
  await d?.stop();
});

const call = (method: string, p: string, o?: SharedCall) => sharedCall(d.url, method, p, o);

async function signIn(token: string): Promise<string> {
  const res = await call("POST", "/api/session", { body: { token } });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.clone().json()).toMatchObject({ via: "impersonation" });
  return sessionCookieOf(res);
}

describe("impersonation mode", () => {
  it("acts as the signed-in user through the service account, and ignores a client's Impersonate-* headers", async () => {
    const name = uniqueName("shared-imp");
    const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    try {
      const changed = { ...created, webhooks: [{ ...created.webhooks?.[0], timeoutSeconds: 3 }] };
      const viewer = await signIn(stack.tokens.viewer);
      const denied = await call("PUT", `/api/webhooks/${V}/${name}`, {
        cookie: viewer,
        body: { object: changed },
      });
      expect(denied.status).toBe(403);
      expect(((await denied.json()) as { message: string }).message).toContain('"viewer"');
      // The service account could impersonate an admin; a client asking for it is not heard.
      const asked = await call("PUT", `/api/webhooks/${V}/${name}`, {
        cookie: viewer,
        body: { object: changed },
        headers: {
          "Impersonate-User": "admin",
          "Impersonate-Group": "system:masters",
          "Impersonate-Uid": "admin-uid",
        },
      });
      expect(asked.status).toBe(403);
      expect((await getConfig(kube, V, name))?.metadata.resourceVersion).toBe(
        created.metadata.resourceVersion,
      );

      const editor = await signIn(stack.tokens.editor);
      const ok = await call("PUT", `/api/webhooks/${V}/${name}`, {
        cookie: editor,
        body: { object: changed },
      });
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect((await getConfig(kube, V, name))?.webhooks?.[0]?.timeoutSeconds).toBe(3);

      // The apiserver's own record: the service account, impersonating each user.
      const writes = await auditedUpdates(stack, name, 3);
      expect(writes.length).toBeGreaterThanOrEqual(3);
      for (const w of writes) {
        expect(w.user?.username).toBe("system:serviceaccount:portcullis-shared:dashboard");
      }
      expect(writes.map((w) => [w.impersonatedUser?.username, w.responseStatus?.code])).toEqual(
        expect.arrayContaining([
          ["viewer", 403],
          ["editor", 200],
        ]),
      );
      expect(writes.some((w) => w.impersonatedUser?.username === "admin")).toBe(false);
      const editorWrite = writes.find((w) => w.impersonatedUser?.username === "editor");
      expect(editorWrite?.impersonatedUser?.groups).toContain("portcullis:editors");
    } finally {
      await deleteConfig(kube, V, name);
    }
  });

  it("signs a service account's token in as that service account", async () => {
    const res = await call("POST", "/api/session", { body: { token: d.nobodyToken } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({
      username: "system:serviceaccount:portcullis-shared:nobody",
      via: "impersonation",
    });
    // The token is not kept, so the session ends when the token does (a TokenRequest for an
    // hour), not 8 hours after sign-in.
    const info = await call("GET", "/api/session", { cookie: sessionCookieOf(res) });
    const { expires } = (await info.json()) as { expires: number };
    expect(expires).toBeGreaterThan(Date.now());
    expect(expires).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it("refuses a sign-in its service account may not impersonate, saying so, and makes no session", async () => {
    // The role of a dashboard that may impersonate users and groups but not service accounts.
    const narrow = await startSharedDashboard(stack, {
      impersonate: true,
      impersonates: ["users", "groups"],
    });
    try {
      const refused = await sharedCall(narrow.url, "POST", "/api/session", {
        body: { token: narrow.nobodyToken },
      });
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as { reason: string; message: string };
      expect(body.reason).toBe("ImpersonationRefused");
      expect(body.message).toContain('"system:serviceaccount:portcullis-shared:nobody"');
      expect(body.message).toContain('cannot impersonate resource "serviceaccounts"');
      expect(refused.headers.get("set-cookie")).toBeNull();
      // A user it may impersonate still signs in.
      const ok = await sharedCall(narrow.url, "POST", "/api/session", {
        body: { token: stack.tokens.viewer },
      });
      expect(ok.status, await ok.clone().text()).toBe(200);
    } finally {
      await narrow.stop();
    }
  });

  it("keeps the user's token only encrypted", async () => {
    await signIn(stack.tokens.editor);
    const db = new Database(path.join(d.dataDir, "decisions.sqlite"), { readonly: true });
    try {
      const rows = db.prepare("SELECT username, token FROM portcullis_sessions").all() as Array<{
        username: string;
        token: string | null;
      }>;
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        // iv.tag.ciphertext (AES-256-GCM, base64url): never the token itself.
        expect(r.token).toMatch(/^[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
        expect(r.token).not.toContain(stack.tokens.editor.slice(0, 16));
      }
    } finally {
      db.close();
    }
  });

  /** A service account of its own, and a token for it (what a revoked user was). */
  async function disposableUser(name: string): Promise<string> {
    await admin(stack, "POST", `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts`, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name },
    });
    const res = await admin(
      stack,
      "POST",
      `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts/${name}/token`,
      { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
    );
    return (JSON.parse(res.body) as { status: { token: string } }).status.token;
  }

  /**
   * Deletes the service account, then waits until the apiserver itself refuses its token (it
   * caches a token it accepted for up to 10 s); returns when it did.
   */
  async function revoke(name: string, token: string): Promise<number> {
    await admin(stack, "DELETE", `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts/${name}`);
    return apiserverRefuses(stack, token);
  }

  it("a revoked user's session ends within the re-validation interval", async () => {
    const name = uniqueName("revoked");
    const token = await disposableUser(name);
    const cookie = await signIn(token);
    expect((await call("GET", "/api/session", { cookie })).status).toBe(200);
    const revoked = await revoke(name, token);
    await expect
      .poll(
        async () => {
          const res = await call("GET", "/api/session", { cookie });
          if (res.status !== 401) {
            expect(res.status).toBe(200);
            // Still within the interval (and a little for the review itself).
            expect(performance.now() - revoked).toBeLessThan(REVALIDATE_S * 1000 + 2000);
          }
          return res.status;
        },
        { timeout: REVALIDATE_S * 1000 + 2000, interval: 100 },
      )
      .toBe(401);
    expect(performance.now() - revoked).toBeLessThan(REVALIDATE_S * 1000 + 2000);
    // Ended, not just refused once: the session is gone from the store.
    expect((await call("GET", "/api/session", { cookie })).status).toBe(401);
  }, 60_000);

  it("a revoked user's next write ends the session at once, within the interval", async () => {
    // The default interval (30 s): longer than this test, so only the write re-validates.
    const slow = await startSharedDashboard(stack, { impersonate: true });
    try {
      const name = uniqueName("revoked-w");
      const token = await disposableUser(name);
      const signedIn = await sharedCall(slow.url, "POST", "/api/session", { body: { token } });
      expect(signedIn.status).toBe(200);
      const cookie = sessionCookieOf(signedIn);
      await revoke(name, token);
      // A read within the interval is still served from the session...
      expect((await sharedCall(slow.url, "GET", "/api/session", { cookie })).status).toBe(200);
      // ...a write is not: it re-validates first, and the session ends.
      const res = await sharedCall(slow.url, "POST", "/api/policies/try", {
        cookie,
        body: { object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } } },
      });
      // Try it for real reports the apiserver call's failure as its verdict: the session ended.
      expect(await res.json()).toMatchObject({
        allowed: false,
        error: { status: 401, reason: "SessionRequired" },
      });
      expect((await sharedCall(slow.url, "GET", "/api/session", { cookie })).status).toBe(401);
    } finally {
      await slow.stop();
    }
  }, 90_000);
});
