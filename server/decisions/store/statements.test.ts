/**
 * Reading decisions on SQLite and PostgreSQL: filters, pages, the chart and the tally, their query
 * plans, and (SQLite) reads on the reader thread.
 */
import { describe, expect, it } from "vitest";
import { matchesDecisionFilter } from "@/lib/decisions/filter";
import { parsedEvent } from "../../../test/parsed-event";
import { sql, type Sql } from "../sql";
import { histogramStatement, listStatement, requestsStatement, tallyStatement } from "./statements";
import { all, describeStores, filter, onSqlite, parsed, T0 } from "./test-support";

describeStores("DecisionStore reads", (ctx) => {
  it("filters by hook, outcome, namespace, user, resource, operation, request and time", async () => {
    await ctx.store.ingest([
      parsed("e1", { ns: "a", user: "alice", t: T0 }),
      parsed("e2", { ns: "b", user: "bob", hook: "other.example.com", t: T0 + 60_000 }),
      parsed("e3", { ns: "b", deny: "d.example.com", t: T0 + 120_000 }),
    ]);
    const ids = async (q: string) =>
      (await ctx.store.list(filter(q), { limit: 10 })).map((d) => d.auditID);
    expect(await ids("hook=other.example.com")).toEqual(["e2"]);
    expect(await ids("policy=other.example.com")).toEqual([]);
    expect(await ids("outcome=denied")).toEqual(["e3"]);
    expect(await ids("outcome=denied&outcome=mutated&namespace=b")).toEqual(["e3", "e3", "e2"]);
    expect(await ids("user=bob")).toEqual(["e2"]);
    expect(await ids("resource=pods")).toEqual([]);
    expect(await ids("operation=CREATE&namespace=a")).toEqual(["e1"]);
    expect(await ids(`from=${T0 + 60_000}&to=${T0 + 120_000}`)).toEqual(["e2"]);
    expect(await ids("auditID=e3")).toEqual(["e3", "e3"]);
    expect(await ids(`auditID=e2&from=${T0}`)).toEqual(["e2"]);
    expect(await ids("auditID=e9")).toEqual([]);
    const page = await ctx.store.list(all, { limit: 2 });
    const next = await ctx.store.list(all, { limit: 2, before: page[1]!.id });
    expect([...page, ...next].map((d) => d.auditID)).toEqual(["e3", "e3", "e2", "e1"]);
    expect((await ctx.store.after(all, page[1]!.id, 10)).map((d) => d.id)).toEqual([page[0]!.id]);
  });

  it("counts sightings per decider, hook and configuration, with errors and first and last time", async () => {
    await ctx.store.ingest([
      parsed("s1", { t: T0 }),
      parsed("s2", { t: T0 + 5_000, deny: "d.example.com" }),
      parsed("s3", { t: T0 + 9_000 }),
    ]);
    const sightings = await ctx.store.sightings({ ...all, from: T0, to: T0 + 60_000 });
    const byHook = Object.fromEntries(sightings.map((s) => [`${s.kind}/${s.hook}`, s]));
    expect(byHook["mutating-webhook/m.example.com"]).toMatchObject({
      calls: 3,
      errors: 0,
      first: T0,
      last: T0 + 9_000,
    });
    expect(byHook["webhook/d.example.com"]).toMatchObject({ calls: 1, first: T0 + 5_000 });
    expect(await ctx.store.sightings({ ...all, from: T0 + 60_001, to: T0 + 120_000 })).toEqual([]);
  });

  it("narrows a webhook's decisions to one configuration's phase: a name in a mutating and a validating configuration is two webhooks", async () => {
    const event = (auditID: string, over: Record<string, unknown>) =>
      parsedEvent(auditID, T0, { responseStatus: { code: 201 }, ...over });
    const mutation = (configuration: string) => ({
      annotations: {
        "mutation.webhook.admission.k8s.io/round_0_index_0": JSON.stringify({
          configuration,
          webhook: "webhook.cert-manager.io",
          mutated: false,
        }),
      },
    });
    await ctx.store.ingest([
      event("m1", mutation("cert-manager-webhook")),
      event("m2", mutation("another-mutating")),
      event("v1", {
        annotations: {
          "failed-open.validating.webhook.admission.k8s.io/round_0_index_0":
            "webhook.cert-manager.io",
        },
      }),
      event("s1", {
        responseStatus: {
          code: 500,
          message:
            'Internal error occurred: failed calling webhook "webhook.cert-manager.io": failed to call webhook: refused',
        },
        annotations: {
          "failed-open.validating.webhook.admission.k8s.io/round_0_index_1": "other.example.com",
        },
      }),
    ]);
    const ids = async (q: string) =>
      (await ctx.store.list(filter(`hook=webhook.cert-manager.io&${q}`), { limit: 10 }))
        .map((d) => d.auditID)
        .sort();
    expect(await ids("")).toEqual(["m1", "m2", "s1", "v1"]);
    expect(await ids("phase=validating&configuration=cert-manager-webhook")).toEqual(["s1", "v1"]);
    expect(await ids("phase=mutating&configuration=cert-manager-webhook")).toEqual(["m1", "s1"]);
    expect(await ids("phase=mutating&configuration=another-mutating")).toEqual(["m2", "s1"]);
    // The live stream's match agrees with the query.
    const every = await ctx.store.list(all, { limit: 10 });
    for (const q of ["phase=validating", "phase=mutating&configuration=another-mutating"]) {
      const f = filter(`hook=webhook.cert-manager.io&${q}`);
      expect(every.filter((d) => matchesDecisionFilter(d, f)).map((d) => d.id)).toEqual(
        (await ctx.store.list(f, { limit: 10 })).map((d) => d.id),
      );
    }
  });

  it("narrows a policy's decisions to its kind and binding: a validating and a mutating policy may share a name", async () => {
    const event = (auditID: string, over: Record<string, unknown>) =>
      parsedEvent(auditID, T0, { responseStatus: { code: 201 }, ...over });
    const warned = (binding: string) => ({
      annotations: {
        "validation.policy.admission.k8s.io/validation_failure": JSON.stringify([
          { message: "no", policy: "p", binding, expressionIndex: 0, validationActions: ["Warn"] },
        ]),
      },
    });
    await ctx.store.ingest([
      event("v1", warned("b1")),
      event("v2", warned("b2")),
      event("m1", {
        responseStatus: {
          code: 403,
          message:
            "configmaps \"m1\" is forbidden: policy 'p' with binding 'mb' denied request: no",
        },
      }),
    ]);
    const kinds = (await ctx.store.list(filter("policy=p"), { limit: 10 })).map((d) => d.kind);
    expect(kinds.sort()).toEqual(["mutating-policy", "validating-policy", "validating-policy"]);
    const ids = async (q: string) =>
      (await ctx.store.list(filter(`policy=p&${q}`), { limit: 10 })).map((d) => d.auditID).sort();
    expect(await ids("phase=validating")).toEqual(["v1", "v2"]);
    expect(await ids("phase=mutating")).toEqual(["m1"]);
    expect(await ids("phase=validating&configuration=b2")).toEqual(["v2"]);
    // The live stream's match agrees with the query.
    const every = await ctx.store.list(all, { limit: 10 });
    for (const q of ["phase=validating", "phase=mutating", "phase=validating&configuration=b1"]) {
      const f = filter(`policy=p&${q}`);
      expect(every.filter((d) => matchesDecisionFilter(d, f)).map((d) => d.id)).toEqual(
        (await ctx.store.list(f, { limit: 10 })).map((d) => d.id),
      );
    }
  });

  it("narrows the whole feed to one phase: its webhooks' and its policies' decisions", async () => {
    const event = (auditID: string, over: Record<string, unknown>) =>
      parsedEvent(auditID, T0, { responseStatus: { code: 201 }, ...over });
    await ctx.store.ingest([
      event("mw", {
        annotations: {
          "mutation.webhook.admission.k8s.io/round_0_index_0": JSON.stringify({
            configuration: "c",
            webhook: "m.example.com",
            mutated: true,
          }),
        },
      }),
      event("vw", {
        annotations: {
          "failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "v.example.com",
        },
      }),
      event("vp", {
        annotations: {
          "validation.policy.admission.k8s.io/validation_failure": JSON.stringify([
            {
              message: "no",
              policy: "p",
              binding: "b",
              expressionIndex: 0,
              validationActions: ["Warn"],
            },
          ]),
        },
      }),
      event("mp", {
        responseStatus: {
          code: 403,
          message:
            "configmaps \"mp\" is forbidden: policy 'p' with binding 'mb' denied request: no",
        },
      }),
    ]);
    const ids = async (q: string) =>
      (await ctx.store.list(filter(q), { limit: 10 })).map((d) => d.auditID).sort();
    expect(await ids("phase=mutating")).toEqual(["mp", "mw"]);
    expect(await ids("phase=validating")).toEqual(["vp", "vw"]);
    const every = await ctx.store.list(all, { limit: 10 });
    for (const q of ["phase=mutating", "phase=validating"]) {
      const f = filter(q);
      expect(every.filter((d) => matchesDecisionFilter(d, f)).map((d) => d.id)).toEqual(
        (await ctx.store.list(f, { limit: 10 })).map((d) => d.id),
      );
    }
  });

  it("stores requests whose long Audit-IDs share their first characters apart, each found by the ID its client sent", async () => {
    const long = `trace-${"a".repeat(130)}`;
    const r = await ctx.store.ingest([parsed(long), parsed(`${long}b`, { deny: "d.example.com" })]);
    expect(r).toMatchObject({ stored: 2, duplicates: 0 });
    const found = await ctx.store.list(filter(`auditID=${encodeURIComponent(long)}`), {
      limit: 10,
    });
    expect(found.map((d) => d.outcome)).toEqual(["mutated"]);
    const again = await ctx.store.list(filter(`auditID=${encodeURIComponent(found[0]!.auditID)}`), {
      limit: 10,
    });
    expect(again.map((d) => d.id)).toEqual(found.map((d) => d.id));
  });

  it("files an impersonated request under the user admission saw, shown with who impersonated", async () => {
    await ctx.store.ingest([parsed("imp", { user: "admin", as: "jane" }), parsed("own")]);
    const jane = await ctx.store.list(filter("user=jane"), { limit: 10 });
    expect(jane.map((d) => d.auditID)).toEqual(["imp"]);
    expect(jane[0]?.request).toMatchObject({
      user: "jane",
      groups: ["devs"],
      impersonatedBy: "admin",
    });
    expect(await ctx.store.list(filter("user=admin"), { limit: 10 })).toEqual([]);
    const detail = await ctx.store.detail(jane[0]!.id);
    expect(detail?.decision.request).toMatchObject({ user: "jane", impersonatedBy: "admin" });
  });

  it("serves the hook and policy filters, of the list and of the chart, through the hook's spans (SQLite) or index (PostgreSQL)", async () => {
    // What the planner would choose: PostgreSQL costs a tiny table as a sequential scan anyway,
    // so there it is told to avoid one; SQLite plans without statistics, as in use.
    const dialect = ctx.store.driver.dialect;
    const plan = (q: Sql) =>
      ctx.store.driver.transaction(async (tx) => {
        if (dialect === "postgres") await tx.query(sql`SET LOCAL enable_seqscan = off`);
        const rows = await tx.query<Record<string, string>>({
          text: `EXPLAIN ${dialect === "sqlite" ? "QUERY PLAN " : ""}${q.text}`,
          params: q.params,
        });
        return rows.map((r) => r.detail ?? r["QUERY PLAN"] ?? "").join("\n");
      });
    // SQLite: the spans drive; each one's decisions are read by their id range.
    const served =
      dialect === "sqlite"
        ? /(SCAN|SEARCH) s\b[^\n]*\n(.*\n)*SEARCH d USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/
        : /Index.* (using|on) admission_calls_hook/;
    for (const q of ["hook=h.example.com", "policy=p", `hook=h.example.com&from=${T0}`]) {
      const f = filter(q);
      const list = await plan(listStatement(f, { limit: 20, before: 1000 }, dialect));
      expect(list).toMatch(served);
      expect(
        await plan(histogramStatement({ ...f, from: T0, to: T0 + 3_600_000 }, 60_000, dialect)),
      ).toMatch(served);
      expect(await plan(requestsStatement(f, 20, dialect))).toMatch(served);
      // Newest first with no sort of all the hook's decisions: only each span's own rows.
      if (dialect === "sqlite") {
        expect(list).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
        expect(list).toMatch(/TEMP B-TREE FOR LAST TERM OF ORDER BY/);
      }
    }
  });

  it("reads a hook's decisions as the unfiltered store has them, page by page and by time", async () => {
    const hooks = ["a.example.com", "b.example.com", "c.example.com"];
    let n = 0;
    const batch = (b: number) =>
      Array.from({ length: 12 }, (_, i) => {
        n++;
        return parsed(`s${n}`, {
          hook: hooks[(i * (b + 1)) % 3],
          // Some events have a second decision (stored after the batch's first ones).
          deny: i % 4 === 0 ? hooks[(i + b) % 3] : undefined,
          t: T0 + n * 1000,
        });
      });
    for (let b = 0; b < 4; b++) await ctx.store.ingest(batch(b));
    // Two batches in one group commit.
    await Promise.all([ctx.store.ingest(batch(4)), ctx.store.ingest(batch(5))]);
    const from = T0 + 20_500;
    const to = T0 + 50_500;
    const check = async () => {
      const everything = await ctx.store.list(all, { limit: 1000 });
      expect(everything.length).toBeGreaterThan(72);
      for (const h of hooks) {
        const want = everything.filter((d) => d.hook === h);
        expect(want.length).toBeGreaterThan(10);
        const f = filter(`hook=${h}`);
        // Page by page, newest first.
        const got: number[] = [];
        for (let before: number | undefined; ;) {
          const page = await ctx.store.list(f, { limit: 5, before });
          if (page.length === 0) break;
          got.push(...page.map((d) => d.id));
          before = page.at(-1)?.id;
        }
        expect(got).toEqual(want.map((d) => d.id));
        // A replay's read: the same decisions, each with its request and its event parsed.
        const requests = await ctx.store.listRequests(f, 1000);
        expect(requests.map((r) => [r.id, r.time, r.auditID, r.request])).toEqual(
          want.map((d) => [d.id, d.time, d.auditID, d.request]),
        );
        for (const r of requests)
          expect(r.event).toEqual(JSON.parse(r.rawEvent ?? "null") as unknown);
        // After a cursor, oldest first.
        const cursor = want[7]!.id;
        expect((await ctx.store.after(f, cursor, 100)).map((d) => d.id)).toEqual(
          want
            .slice(0, 7)
            .map((d) => d.id)
            .reverse(),
        );
        // A time range that cuts through batches, in the list and in the chart.
        const inRange = want.filter((d) => d.time >= from && d.time < to);
        expect(
          (await ctx.store.list(filter(`hook=${h}&from=${from}&to=${to}`), { limit: 100 })).map(
            (d) => d.id,
          ),
        ).toEqual(inRange.map((d) => d.id));
        const chart = await ctx.store.histogram(filter(`hook=${h}&from=${from}&to=${to}`), 10_000);
        const counted = chart.flatMap((b) => Object.entries(b.counts));
        for (const outcome of ["mutated", "denied"] as const)
          expect(counted.filter(([o]) => o === outcome).reduce((t, [, c]) => t + (c ?? 0), 0)).toBe(
            inRange.filter((d) => d.outcome === outcome).length,
          );
      }
      expect(await ctx.store.list(filter("hook=none.example.com"), { limit: 5 })).toEqual([]);
    };
    await check();
  });

  it("counts decisions by outcome over time", async () => {
    await ctx.store.ingest([
      parsed("e1", { t: T0 }),
      parsed("e2", { t: T0 + 5_000, deny: "d" }),
      parsed("e3", { t: T0 + 61_000 }),
    ]);
    expect(await ctx.store.histogram({ ...all, from: T0, to: T0 + 120_000 }, 60_000)).toEqual([
      { start: T0, counts: { mutated: 2, denied: 1 } },
      { start: T0 + 60_000, counts: { mutated: 1 } },
    ]);
  });

  it("counts decisions by decider and outcome within a time range, largest first", async () => {
    await ctx.store.ingest([
      parsed("e1", { t: T0 - 1 }),
      parsed("e2", { t: T0, deny: "d.example.com", ns: "b" }),
      parsed("e3", { t: T0 + 5_000, deny: "d.example.com" }),
      parsed("e4", { t: T0 + 6_000, hook: "other.example.com" }),
      parsed("e5", { t: T0 + 60_000 }),
    ]);
    const window = { ...all, from: T0, to: T0 + 60_000 };
    const tallies = await ctx.store.tally(window, 10);
    expect(tallies.map(({ kind: _, ...t }) => t)).toEqual([
      { hook: "d.example.com", outcome: "denied", count: 2, last: T0 + 5_000 },
      { hook: "m.example.com", outcome: "mutated", count: 2, last: T0 + 5_000 },
      { hook: "other.example.com", outcome: "mutated", count: 1, last: T0 + 6_000 },
    ]);
    expect(tallies[1]?.kind).toBe("mutating-webhook");
    expect(await ctx.store.tally(window, 1)).toHaveLength(1);
    expect(await ctx.store.tally({ ...window, namespace: "b" }, 10)).toMatchObject([
      { hook: "d.example.com", count: 1 },
      { hook: "m.example.com", count: 1 },
    ]);
    expect(await ctx.store.tally({ ...all, from: T0 + 60_001, to: T0 + 120_000 }, 10)).toEqual([]);
    if (ctx.store.driver.dialect === "sqlite") {
      // Only the window's decisions are read: by the unique index, which leads with the time.
      const plan = await ctx.store.driver.query<{ detail: string }>({
        text: `EXPLAIN QUERY PLAN ${tallyStatement(window, 10, "sqlite").text}`,
        params: tallyStatement(window, 10, "sqlite").params,
      });
      expect(plan.map((r) => r.detail).join("\n")).toMatch(
        /SEARCH d USING INDEX \S+ \(time>\? AND time<\?\)/,
      );
    }
  });
});

describe("DecisionStore on SQLite: the feed's reads", { timeout: 60_000 }, () => {
  it("run on the reader thread, on its own connection: the event loop turns while one runs, the answers are the writer's, each commit is seen and nothing uncommitted", async () => {
    await onSqlite(10_000_000, async (s, driver) => {
      for (let b = 0; b < 10; b++)
        await s.ingest(
          Array.from({ length: 400 }, (_, i) =>
            parsed(`r${b}-${i}`, {
              t: T0 + b * 400 + i,
              ...(i % 3 === 0 ? { deny: "d.example.com" } : {}),
            }),
          ),
        );
      const window = { ...all, from: T0, to: T0 + 60_000 };
      // On the writer's connection a read is synchronous: it is over before the loop turns.
      let turns = 0;
      setImmediate(() => turns++);
      const onWriter = await driver.query(tallyStatement(window, 10, "sqlite"));
      expect(turns).toBe(0);
      await new Promise((r) => setImmediate(r));
      turns = 0;
      // The store's reads answer on a later turn: the loop (the audit sink, the live streams) ran
      // meanwhile.
      setImmediate(() => turns++);
      const tallies = await s.tally(window, 10);
      expect(turns).toBe(1);
      expect(tallies.map((t) => [t.hook, t.outcome, t.count])).toEqual(
        (onWriter as Array<{ hook: string; outcome: string; n: number }>).map((r) => [
          r.hook,
          r.outcome,
          r.n,
        ]),
      );
      expect(tallies.reduce((n, t) => n + t.count, 0)).toBe(4_000 + 1_340);
      // Every read of the feed is on the reader's own connection: it sees what is committed, not
      // a write the writer's connection has in progress.
      const before = {
        list: await s.list(all, { limit: 5 }),
        histogram: await s.histogram(window, 60_000),
        counts: await s.counts(),
      };
      const rollback = new Error("roll back");
      await expect(
        driver.transaction(async (tx) => {
          await tx.query(
            sql`UPDATE admission_calls SET hook = (SELECT MAX(id) FROM admission_names), message = 'uncommitted'`,
          );
          await tx.query(sql`DELETE FROM admission_calls WHERE id % 2 = 0`);
          const [mine] = await tx.query<{ n: number }>(
            sql`SELECT COUNT(*) AS n FROM admission_calls WHERE message = 'uncommitted'`,
          );
          expect(mine?.n).toBeGreaterThan(0);
          expect(await s.tally(window, 10)).toEqual(tallies);
          expect(await s.list(all, { limit: 5 })).toEqual(before.list);
          expect(await s.histogram(window, 60_000)).toEqual(before.histogram);
          expect(await s.counts()).toEqual(before.counts);
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      // A read after a commit sees it, with its text.
      const stored = await s.ingest([parsed("after-commit", { t: T0 + 50_000 })]);
      const [newest] = await s.list(all, { limit: 1 });
      expect(newest?.id).toBe(stored.decisions[0]?.id);
      expect((await s.detail(newest?.id ?? 0))?.rawEvent).toContain("after-commit");
      // A statement the reader refuses fails that read only.
      await expect(
        driver.read({ text: "DELETE FROM admission_calls", params: [] }),
      ).rejects.toThrow();
      expect((await s.counts()).events).toBe(4_001);
    });
  });
});
