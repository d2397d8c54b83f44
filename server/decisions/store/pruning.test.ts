/**
 * Retention on SQLite and PostgreSQL: by age and by row count, whole events, a chunk a
 * transaction.
 */
import { describe, expect, it, vi } from "vitest";
import { sql } from "../sql";
import { all, describeStores, filter, onSqlite, parsed, T0 } from "./test-support";

describeStores("DecisionStore retention", (ctx) => {
  it("applies retention by age and by row count, deleting the events with their decisions", async () => {
    await ctx.store.driver.close();
    ctx.store = ctx.open(1000, 3_600_000);
    await ctx.store.migrate();
    const old = Array.from({ length: 5 }, (_, i) => parsed(`old${i}`, { t: T0 - 7_200_000 }));
    const fresh = Array.from({ length: 1500 }, (_, i) => parsed(`new${i}`, { t: T0 }));
    await ctx.store.ingest(old);
    await ctx.store.ingest(fresh);
    expect(await ctx.store.prune(T0)).toBe(505);
    expect(await ctx.store.counts()).toEqual({ events: 1000, decisions: 1000 });
    const newest = await ctx.store.list(all, { limit: 1 });
    expect(newest[0]?.auditID).toBe("new1499");
    expect(await ctx.store.hasEvent("old0", "ResponseComplete")).toBe(false);
    expect(await ctx.store.hasEvent("new499", "ResponseComplete")).toBe(false);
    expect(await ctx.store.hasEvent("new500", "ResponseComplete")).toBe(true);
    // Texts shared with a deleted event stay for the stored ones; rows of none are deleted.
    for (const id of ["new500", "new1499"]) {
      const [d] = await ctx.store.list(filter(`auditID=${id}`), { limit: 1 });
      expect(JSON.parse((await ctx.store.detail(d!.id))?.rawEvent ?? "{}")).toMatchObject({
        auditID: id,
      });
    }
    const [first] = await ctx.store.list(filter("auditID=new500"), { limit: 1 });
    const [kept] = await ctx.store.driver.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM admission_events WHERE id <= ${first!.id}`,
    );
    expect(Number(kept?.n)).toBe(1);
    // SQLite: the old batch's span covers no stored decision any more: gone.
    if (ctx.store.driver.dialect === "sqlite") {
      const [spans] = await ctx.store.driver.query<{ n: number | string }>(
        sql`SELECT COUNT(*) AS n FROM admission_hook_spans`,
      );
      expect(Number(spans?.n)).toBe(1);
    }
    expect(await ctx.store.list(filter("hook=m.example.com"), { limit: 2000 })).toHaveLength(1000);
  });

  it("prunes a few decisions a transaction, leaving whole events, to the same end as at once", async () => {
    await ctx.store.driver.close();
    ctx.store = ctx.open(1000, 3_600_000);
    await ctx.store.migrate();
    // Every third event has a later decision (stored after the batch's first ones).
    const event = (id: string, i: number, t: number) =>
      i % 3 === 0 ? parsed(id, { deny: "d.example.com", t }) : parsed(id, { t });
    await ctx.store.ingest(
      Array.from({ length: 300 }, (_, i) => event(`old${i}`, i, T0 - 7_200_000 - i)),
    );
    await ctx.store.ingest(Array.from({ length: 1500 }, (_, i) => event(`new${i}`, i, T0 + i)));
    const transactions = vi.spyOn(ctx.store.driver, "transaction");
    // Ids: old firsts 1–300, their later decisions 301–400; new firsts 401–1900, later 1901–2400.
    // Age takes all 400 old rows; the 1,001st newest row is id 1400 (new999): new0–new999 go,
    // with the 334 later decisions among them. Left: new1000–new1499 and 166 later decisions.
    expect(await ctx.store.prune(T0, 50)).toBe(400 + 1000 + 334);
    // Age: 50 rows or 51 (an event's two) a transaction; the cut: 50 ids of first decisions.
    expect(transactions.mock.calls.length).toBeGreaterThanOrEqual(Math.ceil(400 / 51) + 1000 / 50);
    expect(await ctx.store.counts()).toEqual({ events: 500, decisions: 666 });
    const rows = await ctx.store.driver.query<{ audit_id: string; n: number | string }>(
      sql`SELECT audit_id, COUNT(*) AS n FROM admission_calls GROUP BY audit_id`,
    );
    const kept = new Map(rows.map((r) => [r.audit_id, Number(r.n)]));
    for (let i = 0; i < 1500; i++)
      expect(kept.get(`new${i}`), `new${i}`).toBe(i < 1000 ? undefined : i % 3 === 0 ? 2 : 1);
    // The oldest kept event still reads its text; nothing more to prune.
    const [first] = await ctx.store.list(filter("auditID=new1000"), { limit: 1 });
    expect(JSON.parse((await ctx.store.detail(first!.id))?.rawEvent ?? "{}")).toMatchObject({
      auditID: "new1000",
    });
    expect(await ctx.store.prune(T0, 50)).toBe(0);
  });
});

describe("DecisionStore on SQLite: retention", { timeout: 60_000 }, () => {
  it("lets a batch be stored between a prune's transactions instead of holding it until the end", async () => {
    await onSqlite(100, async (s) => {
      await s.ingest(Array.from({ length: 2000 }, (_, i) => parsed(`p${i}`, { t: T0 + i })));
      const done: string[] = [];
      const pruning = s.prune(T0, 100).then((n) => (done.push("prune"), n));
      // Asked for while the prune runs: joins it.
      const again = s.prune(T0, 100);
      const late = s
        .ingest([parsed("late", { t: T0 + 5000 })])
        .then((r) => (done.push("batch"), r));
      const [deleted, joined, r] = await Promise.all([pruning, again, late]);
      expect(r.stored).toBe(1);
      expect(done).toEqual(["batch", "prune"]);
      expect(joined).toBe(deleted);
      // The batch landed before the cut was found: it is among the newest 100 rows, which stay.
      expect(deleted).toBe(1901);
      expect(await s.counts()).toEqual({ events: 100, decisions: 100 });
      expect(await s.hasEvent("late", "ResponseComplete")).toBe(true);
    });
  });
});
