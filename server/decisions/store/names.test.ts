/**
 * Names stored once each, on SQLite and PostgreSQL: any length, any character, and ids forgotten
 * with a transaction that failed.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { parseDecisionFilter } from "@/lib/decisions/filter";
import { all, describeStores, filter, parsed } from "./test-support";

describeStores("DecisionStore names", (ctx) => {
  it("forgets the ids of names a batch stored in a transaction that failed: names stored after it get ids of their own", async () => {
    const first = { user: "first-user", ns: "first-ns", hook: "first.example.com" };
    const bad = parsed("bad", first);
    const broken: ParsedAuditEvent = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, message: null as unknown as string }],
    };
    await expect(ctx.store.ingest([broken])).rejects.toThrow(/NOT NULL|not-null/i);
    // Other names first (on SQLite they take the ids the rolled-back ones had), then the same.
    await ctx.store.ingest([
      parsed("other", { user: "second-user", ns: "second-ns", hook: "second.example.com" }),
    ]);
    await ctx.store.ingest([parsed("again", first)]);
    const got = await ctx.store.list(all, { limit: 10 });
    expect(got.map((d) => [d.auditID, d.hook, d.stage, d.outcome])).toEqual([
      ["again", "first.example.com", "ResponseComplete", "mutated"],
      ["other", "second.example.com", "ResponseComplete", "mutated"],
    ]);
    const ids = async (q: string) =>
      (await ctx.store.list(filter(q), { limit: 10 })).map((d) => d.auditID);
    expect(await ids("user=first-user&namespace=first-ns")).toEqual(["again"]);
    expect(await ids("user=second-user&namespace=second-ns")).toEqual(["other"]);
    expect(await ids("hook=first.example.com")).toEqual(["again"]);
  });

  it("stores names of any length: one longer than an index entry may be is keyed by its digest", async () => {
    const long = (c: string) => `${"u".repeat(600)}${c}`;
    // Random, so PostgreSQL cannot compress it below its index entry limit (2,704 bytes).
    const hook = `${randomBytes(3000).toString("base64")}.example.com`;
    await ctx.store.ingest([
      parsed("long-1", { user: long("1"), hook }),
      parsed("long-2", { user: long("2"), hook }),
      parsed("short", { user: "=".repeat(3) }),
    ]);
    const ids = async (q: URLSearchParams) =>
      (await ctx.store.list(parseDecisionFilter(q), { limit: 10 })).map((d) => d.auditID);
    expect(await ids(new URLSearchParams({ user: long("2") }))).toEqual(["long-2"]);
    expect(await ids(new URLSearchParams({ user: long("3") }))).toEqual([]);
    expect(await ids(new URLSearchParams({ user: "===" }))).toEqual(["short"]);
    const got = await ctx.store.list(all, { limit: 10 });
    expect(got.map((d) => [d.auditID, d.hook])).toEqual([
      ["short", "m.example.com"],
      ["long-2", hook],
      ["long-1", hook],
    ]);
  });

  it("stores text holding NUL characters, which a webhook's message or a user name may carry", async () => {
    // PostgreSQL's text cannot hold U+0000; SQLite keeps it. Either way the batch is stored (a
    // batch refused for its content would be retried by the apiserver, and refused, forever).
    const nul = "a\u0000b";
    const e = parsed("nul-1", { user: nul, deny: `d.example.com`, ns: "n" });
    const denied = e.decisions.find((d) => d.outcome === "denied")!;
    denied.message = `no \u0000 here`;
    const r = await ctx.store.ingest([e, parsed("nul-2")]);
    expect(r).toMatchObject({ stored: 2, duplicates: 0 });
    const stored =
      ctx.backend.name === "SQLite"
        ? (t: string) => t
        : (t: string) => t.replaceAll("\u0000", "\ufffd");
    const byUser = await ctx.store.list(filter(`user=${encodeURIComponent(nul)}`), { limit: 10 });
    expect(byUser.map((d) => [d.auditID, d.outcome, d.message])).toEqual([
      ["nul-1", "denied", stored("no \u0000 here")],
      ["nul-1", "mutated", ""],
    ]);
    expect(byUser[0]?.request.user).toBe(nul);
    // After a restart (its names not in memory), and beside a user whose name holds U+FFFD.
    await ctx.store.driver.close();
    ctx.store = ctx.open();
    await ctx.store.migrate();
    await ctx.store.ingest([
      parsed("nul-3", { user: nul, ns: "n\\" }),
      parsed("fffd", { user: "a\ufffdb", ns: "n" }),
    ]);
    const ids = async (q: string) =>
      (await ctx.store.list(filter(q), { limit: 10 })).map((d) => [d.auditID, d.stage]);
    expect(await ids(`user=${encodeURIComponent(nul)}`)).toEqual([
      ["nul-3", "ResponseComplete"],
      ["nul-1", "ResponseComplete"],
      ["nul-1", "ResponseComplete"],
    ]);
    expect(await ids(`user=${encodeURIComponent("a\ufffdb")}`)).toEqual([
      ["fffd", "ResponseComplete"],
    ]);
    expect(await ids(`namespace=${encodeURIComponent("n\\")}`)).toEqual([
      ["nul-3", "ResponseComplete"],
    ]);
  });
});
