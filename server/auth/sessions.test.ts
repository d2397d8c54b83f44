import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "@/lib/auth/session-cookie";
import { SqliteDriver } from "@/server/decisions/sqlite";
import { signSessionId, verifySessionCookie } from "./secret";
import { SessionStore } from "./sessions";

let dir: string;
let driver: SqliteDriver;
let store: SessionStore;
const user = { username: "viewer", uid: "viewer-uid", groups: ["portcullis:viewers"] };
const TOKEN = "s3cr3t-token-value-0123456789";

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "sessions-"));
  writeFileSync(path.join(dir, "secret"), "0123456789abcdef0123456789abcdef-test\n");
  process.env.PORTCULLIS_SESSION_SECRET_FILE = path.join(dir, "secret");
  driver = new SqliteDriver(path.join(dir, "db.sqlite"));
  store = new SessionStore(driver);
  await store.migrate();
});
afterAll(async () => {
  await driver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("SessionStore", () => {
  it("keeps the token only encrypted, under a hash of the id", async () => {
    const id = await store.create(user, TOKEN, 1000);
    const rows = await driver.query<Record<string, unknown>>({
      text: "SELECT * FROM portcullis_sessions",
      params: [],
    });
    const raw = JSON.stringify(rows);
    expect(raw).not.toContain(TOKEN);
    expect(raw).not.toContain(id);
    expect(await store.get(id, 2000)).toMatchObject({ ...user, token: TOKEN });
  });

  it("ends a session at its expiry, after the idle timeout, and on delete", async () => {
    const a = await store.create(user, TOKEN, 0);
    // Used every 20 minutes, it lives until its maximum age.
    for (let t = 20 * 60_000; t < SESSION_MAX_AGE_MS; t += 20 * 60_000) {
      expect(await store.get(a, t)).toBeDefined();
    }
    expect(await store.get(a, SESSION_MAX_AGE_MS)).toBeUndefined();

    const b = await store.create(user, TOKEN, 0);
    expect(await store.get(b, SESSION_IDLE_MS)).toBeUndefined();
    // Gone for good, not only refused.
    expect(await store.get(b, 1)).toBeUndefined();

    const c = await store.create(user, undefined, 0);
    expect(await store.get(c, 1)).toMatchObject({ username: "viewer", token: undefined });
    await store.delete(c);
    expect(await store.get(c, 2)).toBeUndefined();
  });

  it("ends an OIDC session with its ID token, and says how the user signed in", async () => {
    const oidc = await store.create(user, TOKEN, 0, { method: "oidc", expires: 60_000 });
    expect(await store.get(oidc, 59_999)).toMatchObject({ method: "oidc", expires: 60_000 });
    expect(await store.get(oidc, 60_000)).toBeUndefined();
    // An ID token valid for longer than the maximum age still ends at the maximum age.
    const long = await store.create(user, TOKEN, 0, { method: "oidc", expires: 10 ** 12 });
    expect((await store.get(long, 1))?.expires).toBe(SESSION_MAX_AGE_MS);
    const token = await store.create(user, TOKEN, 0);
    expect(await store.get(token, 1)).toMatchObject({ method: "token" });
  });

  it("lets an OIDC state be used once, across stores sharing the database", async () => {
    const other = new SessionStore(driver);
    expect(await store.consumeOidcState("state-1", 600_000, 0)).toBe(true);
    expect(await other.consumeOidcState("state-1", 600_000, 1)).toBe(false);
    expect(await store.consumeOidcState("state-2", 600_000, 2)).toBe(true);
    // Expired records are dropped (the flow cookie is refused by then anyway).
    expect(await store.consumeOidcState("state-1", 1_300_000, 700_000)).toBe(true);
    const raw = JSON.stringify(
      await driver.query({ text: "SELECT * FROM portcullis_oidc_states", params: [] }),
    );
    expect(raw).not.toContain("state-1");
  });

  it("adds the sign-in method to a sessions table made before OIDC", async () => {
    const old = new SqliteDriver(path.join(dir, "old.sqlite"));
    try {
      await old.exec(`CREATE TABLE portcullis_sessions (
        id_hash TEXT PRIMARY KEY, username TEXT NOT NULL, uid TEXT NOT NULL, groups TEXT NOT NULL,
        token TEXT, created BIGINT NOT NULL, last_seen BIGINT NOT NULL, expires BIGINT NOT NULL)`);
      const s = new SessionStore(old);
      await s.migrate();
      await s.migrate();
      const id = await s.create(user, TOKEN, 0, { method: "oidc" });
      expect(await s.get(id, 1)).toMatchObject({ method: "oidc", token: TOKEN });
    } finally {
      await old.close();
    }
  });
});

describe("session cookie signature", () => {
  it("accepts its own signature only", () => {
    const signed = signSessionId("abc");
    expect(verifySessionCookie(signed)).toBe("abc");
    expect(verifySessionCookie(`abd${signed.slice(3)}`)).toBeUndefined();
    expect(verifySessionCookie("abc.")).toBeUndefined();
    expect(verifySessionCookie("abc")).toBeUndefined();
    expect(verifySessionCookie(`${signed}x`)).toBeUndefined();
  });
});
