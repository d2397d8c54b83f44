import { describe, expect, it } from "vitest";
import type { BreakGlassRecord } from "@/lib/admission/break-glass/record";
import { BreakGlassStore } from "./break-glass";
import { describeStores } from "./test-support";

const record = (id: string, expiresAt: number): BreakGlassRecord => ({
  v: 1,
  id,
  mode: "ignore",
  resource: "validatingwebhookconfigurations",
  name: "guard",
  hooks: ["a.guard.io"],
  fields: [{ hook: "a.guard.io", field: "failurePolicy", original: "Fail", set: "Ignore" }],
  startedAt: 0,
  expiresAt,
  actor: "alice",
  reason: "r",
});

describe("break-glass episodes", () => {
  describeStores("the episode table", (ctx) => {
    const open = async () => {
      const s = new BreakGlassStore(ctx.store.driver);
      await s.migrate();
      await s.migrate(); // twice: creating is idempotent
      return s;
    };

    it("stores an episode once and lists it while open", async () => {
      const s = await open();
      expect(await s.insert(record("e1", 1000), "admin@x")).toBe(true);
      expect(await s.insert(record("e1", 9999), "other")).toBe(false);
      const got = await s.get("e1");
      expect(got).toMatchObject({ context: "admin@x", state: "active" });
      expect(got?.record.expiresAt).toBe(1000);
      expect((await s.open()).map((e) => e.record.id)).toEqual(["e1"]);
    });

    it("claims a revert only once it is due, for one claimer, and again after a lease ran out", async () => {
      const s = await open();
      await s.insert(record("e1", 1000), "c");
      expect(await s.claim("e1", "a", 999, 100)).toBe(false); // not due: never early
      const both = await Promise.all([
        s.claim("e1", "a", 1000, 100),
        s.claim("e1", "b", 1000, 100),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await s.claim("e1", "c", 1050, 100)).toBe(false); // lease still held
      expect(await s.claim("e1", "c", 1200, 100)).toBe(true); // the claimer died
      expect(await s.finish("e1", "a", "reverted", "{}", 1300)).toBe(false); // not its claim
      await s.begin("e1");
      expect((await s.get("e1"))?.attempts).toBe(1);
      expect(await s.finish("e1", "c", "reverted", "{}", 1300)).toBe(true);
      expect(await s.claim("e1", "d", 9999, 100, true)).toBe(false); // ended
      expect(await s.open()).toEqual([]);
      expect((await s.ended(5)).map((e) => [e.record.id, e.state, e.endedAt])).toEqual([
        ["e1", "reverted", 1300],
      ]);
    });

    it("on PostgreSQL, judges a claim by the database's clock when this process's runs ahead of it", async () => {
      const s = await open();
      const expiresAt = Date.now() + 5 * 60_000;
      await s.insert(record("e3", expiresAt), "c");
      // A replica whose clock jumped 10 minutes forward.
      const jumped = Date.now() + 10 * 60_000;
      expect(await s.claim("e3", "a", jumped, 30_000)).toBe(ctx.store.driver.dialect === "sqlite");
      if (ctx.store.driver.dialect === "postgres") {
        // Claimed by a replica on time: the jumped one may not take the running lease over.
        await s.insert(record("e4", Date.now() - 1000), "c");
        expect(await s.claim("e4", "b", Date.now(), 30_000)).toBe(true);
        expect(await s.claim("e4", "a", jumped, 30_000)).toBe(false);
        expect(await s.claim("e3", "a", jumped, 30_000, true)).toBe(true); // early: always
      }
    });

    it("claims early when asked, gives a failed claim back, and closes a kept episode", async () => {
      const s = await open();
      await s.insert(record("e2", 5000), "c");
      expect(await s.claim("e2", "a", 10, 100, true)).toBe(true);
      await s.release("e2", "a", '{"error":"x"}');
      expect((await s.get("e2"))?.state).toBe("active");
      expect(await s.claim("e2", "b", 5000, 100)).toBe(true);
      expect(await s.finish("e2", "b", "kept", '{"kept":1}', 5001)).toBe(true);
      expect((await s.open()).map((e) => e.state)).toEqual(["kept"]);
      expect(await s.close("e2", "{}", 6000)).toBe(true);
      expect(await s.close("e2", "{}", 6000)).toBe(false);
    });
  });
});
