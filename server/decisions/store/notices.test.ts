/** Replicas sharing a PostgreSQL database tell each other what they store. */
import { afterEach, describe, expect, it } from "vitest";
import { PostgresDriver } from "../postgres";
import { sql } from "../sql";
import { DecisionStore } from "./index";
import { parsed, resetPostgres, usePostgres } from "./test-support";

const pgUrl = usePostgres();

describe("DecisionStore replicas sharing PostgreSQL", { timeout: 30_000 }, () => {
  const opened: DecisionStore[] = [];
  const stops: Array<() => Promise<void>> = [];
  const openPg = async () => {
    const s = new DecisionStore(new PostgresDriver(pgUrl()), {
      maxAgeMs: 7 * 86_400_000,
      maxRows: 1_000_000,
    });
    await s.migrate();
    opened.push(s);
    return s;
  };
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    for (const s of opened.splice(0)) await s.driver.close().catch(() => undefined);
  });

  it("tells each replica what the others store, as they commit it, and not its own", async () => {
    await resetPostgres(pgUrl());
    const a = await openPg();
    const b = await openPg();
    const seenByA: string[] = [];
    const seenByB: string[] = [];
    const watch = (s: DecisionStore, into: string[]) => {
      const l = s.watchOthers((ds) => into.push(...ds.map((d) => `${d.auditID}/${d.id}`)));
      if (l) stops.push(l.stop);
      return l;
    };
    expect(watch(a, seenByA)).toBeDefined();
    expect(watch(b, seenByB)).toBeDefined();
    // LISTEN is set up asynchronously: a probe from a third store shows both are listening.
    const probe = await openPg();
    await probe.ingest([parsed("probe")]);
    const deadline = Date.now() + 10_000;
    while (!(seenByA.length > 0 && seenByB.length > 0)) {
      if (Date.now() > deadline) throw new Error("the replicas never heard the probe");
      await new Promise((r) => setTimeout(r, 50));
    }
    seenByA.length = 0;
    seenByB.length = 0;

    const ra = await a.ingest([parsed("a1"), parsed("a2", { deny: "d.example.com" })]);
    const rb = await b.ingest([parsed("b1")]);
    // A retried batch stores nothing new and tells no one anything.
    await a.ingest([parsed("b1")]);
    const want = (r: typeof ra) => r.decisions.map((d) => `${d.auditID}/${d.id}`);
    const until = Date.now() + 10_000;
    while (seenByA.length < want(rb).length || seenByB.length < want(ra).length) {
      if (Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 200)); // a repeat would arrive by now
    expect(seenByB).toEqual(want(ra));
    expect(seenByA).toEqual(want(rb));
  });

  it("ignores notices on its channel that are not its own kind", async () => {
    await resetPostgres(pgUrl());
    const a = await openPg();
    const seen: string[] = [];
    const l = a.watchOthers((ds) => seen.push(...ds.map((d) => d.auditID)));
    if (l) stops.push(l.stop);
    const other = await openPg();
    const deadline = Date.now() + 10_000;
    for (let i = 0; seen.length === 0; i++) {
      if (Date.now() > deadline) throw new Error("the replica never heard a probe");
      await other.ingest([parsed(`probe${i}`)]);
      await new Promise((r) => setTimeout(r, 100));
    }
    seen.length = 0;
    for (const payload of [
      "not json",
      '{"origin":"z","from":1,"to":1e12}',
      '{"from":1,"to":2}',
      '{"origin":"z","from":5,"to":1}',
      "x".repeat(1000),
    ]) {
      await other.driver.query(sql`SELECT pg_notify('portcullis_decisions', ${payload})`);
    }
    await other.ingest([parsed("real")]);
    const until = Date.now() + 10_000;
    while (seen.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual(["real"]);
  });
});
