/**
 * The decision store on a real SQLite file and on a real PostgreSQL server: batches are
 * all-or-nothing, retried batches are not counted twice, concurrent ones share a commit, and
 * everything survives reopening.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { all, describeStores, filter, onSqlite, parsed, T0 } from "./test-support";

describeStores("DecisionStore", (ctx) => {
  it("stores a batch and lists its decisions newest first with their request facts", async () => {
    const r = await ctx.store.ingest([parsed("e1"), parsed("e2", { deny: "d.example.com" })]);
    expect(r).toMatchObject({ stored: 2, duplicates: 0 });
    expect(r.decisions).toHaveLength(3);
    const items = await ctx.store.list(all, { limit: 10 });
    expect(items.map((d) => [d.auditID, d.hook, d.outcome])).toEqual([
      ["e2", "d.example.com", "denied"],
      ["e2", "m.example.com", "mutated"],
      ["e1", "m.example.com", "mutated"],
    ]);
    expect(items[0]?.request).toMatchObject({ namespace: "a", user: "alice", operation: "CREATE" });
    expect(items.map((d) => d.id)).toEqual(r.decisions.map((d) => d.id).reverse());
  });

  it("skips events of a retried batch, counting them as duplicates", async () => {
    await ctx.store.ingest([parsed("e1"), parsed("e2")]);
    const again = await ctx.store.ingest([parsed("e2"), parsed("e3")]);
    expect(again).toMatchObject({ stored: 1, duplicates: 1 });
    expect(await ctx.store.counts()).toEqual({ events: 3, decisions: 3 });
  });

  it("stores nothing of a batch when one event cannot be stored", async () => {
    const bad = parsed("bad");
    const broken: ParsedAuditEvent = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, message: null as unknown as string }],
    };
    await expect(ctx.store.ingest([parsed("ok"), broken])).rejects.toThrow(/NOT NULL|not-null/i);
    expect(await ctx.store.counts()).toEqual({ events: 0, decisions: 0 });
    expect(await ctx.store.hasEvent("ok", "ResponseComplete")).toBe(false);
    // …and the store keeps working after the failed transaction.
    await ctx.store.ingest([parsed("ok")]);
    expect(await ctx.store.hasEvent("ok", "ResponseComplete")).toBe(true);
  });

  it("saves an audit log cursor with the events it covers, and only if they are stored", async () => {
    const cursor = { name: "/var/log/audit.log", dev: "64768", ino: "1234567", offset: 4096 };
    expect(await ctx.store.cursor(cursor.name)).toBeUndefined();
    await ctx.store.ingest([parsed("c1")], cursor);
    expect(await ctx.store.cursor(cursor.name)).toEqual(cursor);
    // A cursor alone (lines without decisions) moves too, and replaces the previous one.
    await ctx.store.ingest([], { ...cursor, ino: "7654321", offset: 10 });
    expect(await ctx.store.cursor(cursor.name)).toEqual({ ...cursor, ino: "7654321", offset: 10 });
    // A batch that fails leaves the cursor where it was: the follower reads those lines again.
    const bad = parsed("c2");
    const broken: ParsedAuditEvent = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, message: null as unknown as string }],
    };
    await expect(ctx.store.ingest([broken], { ...cursor, offset: 99_999 })).rejects.toThrow();
    expect((await ctx.store.cursor(cursor.name))?.offset).toBe(10);
    expect(await ctx.store.hasEvent("c2", "ResponseComplete")).toBe(false);
  });

  it("stores concurrent batches in one group commit, each answered with its own result", async () => {
    const results = await Promise.all([
      ctx.store.ingest([parsed("g1"), parsed("g2")]),
      ctx.store.ingest([parsed("g2"), parsed("g3")]),
      ctx.store.ingest([parsed("g4")]),
    ]);
    expect(results.map((r) => [r.stored, r.duplicates])).toEqual([
      [2, 0],
      [1, 1],
      [1, 0],
    ]);
    expect(await ctx.store.counts()).toEqual({ events: 4, decisions: 4 });
    const bad = parsed("bad");
    const broken = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, hook: null as unknown as string }],
    };
    const settled = await Promise.allSettled([
      ctx.store.ingest([parsed("g5")]),
      ctx.store.ingest([broken]),
    ]);
    // One transaction: the failing batch takes its group down with it, nothing half-stored.
    expect(settled.map((x) => x.status)).toEqual(["rejected", "rejected"]);
    expect(await ctx.store.hasEvent("g5", "ResponseComplete")).toBe(false);
  });

  it("returns a decision with its raw event", async () => {
    const [d] = (await ctx.store.ingest([parsed("e1")])).decisions;
    const detail = await ctx.store.detail(d!.id);
    expect(detail?.decision.auditID).toBe("e1");
    expect(JSON.parse(detail?.rawEvent ?? "{}")).toMatchObject({ auditID: "e1" });
    expect(await ctx.store.detail(d!.id + 1000)).toBeUndefined();
  });

  it("keeps everything across a reopen of the file", async () => {
    await ctx.store.ingest([parsed("e1"), parsed("e2")]);
    await ctx.store.driver.close();
    ctx.store = ctx.open();
    await ctx.store.migrate();
    expect(await ctx.store.counts()).toEqual({ events: 2, decisions: 2 });
    expect((await ctx.store.ingest([parsed("e2")])).duplicates).toBe(1);
  });

  it("stores an event's later decisions with it: request facts, raw event, retention", async () => {
    const two = (id: string, t = T0) => parsed(id, { deny: "d.example.com", t });
    const r = await ctx.store.ingest([two("m1"), parsed("s1"), two("m2")]);
    expect(r).toMatchObject({ stored: 3, duplicates: 0 });
    expect(r.decisions.map((d) => d.id)).toEqual(
      [...r.decisions.map((d) => d.id)].sort((a, b) => a - b),
    );
    expect(await ctx.store.counts()).toEqual({ events: 3, decisions: 5 });
    const denied = await ctx.store.list(filter("outcome=denied&auditID=m1"), { limit: 10 });
    expect(denied).toHaveLength(1);
    expect(denied[0]?.request).toEqual(r.decisions.find((d) => d.auditID === "m1")?.request);
    expect(JSON.parse((await ctx.store.detail(denied[0]!.id))?.rawEvent ?? "{}")).toMatchObject({
      auditID: "m1",
    });
    // A retried batch is skipped whole, later decisions included.
    expect(await ctx.store.ingest([two("m1")])).toMatchObject({ stored: 0, duplicates: 1 });
    expect(await ctx.store.counts()).toEqual({ events: 3, decisions: 5 });
    // The row limit cuts whole events: m1's later decision goes with its first one.
    await ctx.store.driver.close();
    ctx.store = ctx.open(1000);
    await ctx.store.migrate();
    await ctx.store.ingest(Array.from({ length: 997 }, (_, i) => parsed(`f${i}`)));
    // 1002 rows: the cut falls on s1 (the second row), so m1's first row and s1 go, and m1's
    // later decision (stored after m2's first row) with them; m2 stays whole.
    expect(await ctx.store.prune(T0)).toBe(3);
    expect(await ctx.store.counts()).toEqual({ events: 998, decisions: 999 });
    expect(await ctx.store.hasEvent("m1", "ResponseComplete")).toBe(false);
    expect(await ctx.store.list(filter("auditID=m1"), { limit: 10 })).toEqual([]);
    expect(
      (await ctx.store.list(filter("auditID=m2"), { limit: 10 })).map((x) => x.outcome),
    ).toEqual(["denied", "mutated"]);
  });
});

describe("DecisionStore on SQLite under sustained ingestion", { timeout: 60_000 }, () => {
  it("keeps the WAL bounded: the writer's checkpoint lets the WAL start over", async () => {
    await onSqlite(10_000_000, async (s, _driver, folder) => {
      const pad = "x".repeat(2000);
      let most = 0;
      // Batches back to back, as a busy apiserver sends them: about 60 MB through the WAL.
      for (let b = 0; b < 60; b++) {
        const events = Array.from({ length: 400 }, (_, i) =>
          parsed(`w${b}-${i}`, { ns: `ns-${pad}`, t: T0 + b * 400 + i }),
        );
        expect((await s.ingest(events)).stored).toBe(400);
        most = Math.max(most, statSync(path.join(folder, "decisions.sqlite-wal")).size);
      }
      // 1,000 pages of 16 KB, plus the commit that crossed the mark.
      expect(most).toBeLessThan(24 * 1024 * 1024);
      expect((await s.counts()).events).toBe(24_000);
    });
  });
});
