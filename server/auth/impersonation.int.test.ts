/**
 * Impersonation mode (PORTCULLIS_IMPERSONATE=1) against the real control plane: the dashboard's
 * service account calls the apiserver impersonating the signed-in user (user and groups from the
 * SelfSubjectReview at sign-in), keeps no user token at all, and never passes on an
 * Impersonate-* header a client sends — although its service account may impersonate anyone.
 */
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditedUpdates, readStack, type StackInfo } from "../../cluster/harness/stack";
import { startSharedDashboard, type SharedDashboard } from "../../cluster/harness/shared-dashboard";
import { httpsRequest } from "../../cluster/https-json";
import { sessionCookieOf, sharedCall, type SharedCall } from "../../test/shared-api";
import type { Kube } from "../../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;

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
  d = await startSharedDashboard(stack, { impersonate: true });
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

  it("keeps no user token", async () => {
    await signIn(stack.tokens.editor);
    const db = new Database(path.join(d.dataDir, "decisions.sqlite"), { readonly: true });
    try {
      const rows = db.prepare("SELECT username, token FROM portcullis_sessions").all() as Array<{
        username: string;
        token: string | null;
      }>;
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.token === null)).toBe(true);
    } finally {
      db.close();
    }
  });
});
