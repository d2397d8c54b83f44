/**
 * The events' texts, packed a batch a row and compressed, on SQLite and PostgreSQL: each read back
 * exactly as the apiserver sent it.
 */
import { expect, it } from "vitest";
import { parseAuditEvent } from "@/lib/admission/audit/audit";
import { parseEventListBody } from "@/lib/admission/audit/audit-batch";
import { sql } from "../sql";
import { PACKED_ROW_BYTES, packedTextRows, rowTexts } from "./packing";
import { all, describeStores, filter, list, parsed } from "./test-support";

describeStores("DecisionStore texts", (ctx) => {
  it("stores the texts of a batch's events together, compressed, each read back whole", async () => {
    // ASCII texts and texts that are not.
    const events = Array.from({ length: 40 }, (_, i) =>
      parsed(`t${i}`, { user: i >= 36 ? `zoë-${i}` : "alice" }),
    );
    // A sender's own text with newlines (pretty-printed): kept as it is.
    const pretty = { ...JSON.parse(events[20]!.raw), userAgent: "line\nbreak" };
    events[20] = parseAuditEvent(pretty, JSON.stringify(pretty, null, 2))!;
    expect(events[20].raw).toContain("\n");
    const r = await ctx.store.ingest(events);
    expect(r.stored).toBe(40);
    const rows = await ctx.store.driver.query<{ raw: string; packed: Uint8Array }>(
      sql`SELECT raw, packed FROM admission_events ORDER BY id`,
    );
    const bytes = events.reduce((n, e) => n + 1 + Buffer.byteLength(e.raw), 0);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.raw).toBe("");
    expect(rows[0]?.packed).toBeInstanceOf(Uint8Array);
    expect(rows[0]?.packed.length).toBeLessThan(bytes / 4);
    for (const [i, d] of r.decisions.entries())
      expect((await ctx.store.detail(d.id))?.rawEvent).toBe(events[i]!.raw);
    expect((await ctx.store.list(filter("auditID=t20"), { limit: 1 }))[0]?.request).toEqual(
      events[20].request,
    );
  });

  it("stores each event's text of a body exactly as the apiserver sent it, whichever characters it holds", async () => {
    const item = (auditID: string, extra: Record<string, unknown> = {}) => ({
      ...JSON.parse(parsed(auditID).raw),
      ...extra,
    });
    const secret = {
      ...item("s1"),
      objectRef: { resource: "secrets", namespace: "a", name: "s", apiVersion: "v1" },
      requestObject: { kind: "Secret", data: { password: "aHVudGVyMg==" } },
    };
    const first = item("b0", { annotations: { ...item("b0").annotations, "x/lat": "31µs" } });
    // Stored before: skipped as a duplicate, a gap between the texts copied from the body.
    await ctx.store.ingest(parseEventListBody(Buffer.from(JSON.stringify(list([item("b2")])))));
    const items = [
      first,
      item("b1", { user: { username: "zoë 👩‍💻", groups: [] } }),
      item("b2"),
      { ...item("n0"), annotations: {} }, // no decision: not stored
      secret, // redacted: its text is not the sender's
      item("b3", { userAgent: "tab\there" }),
    ];
    const compact = Buffer.from(JSON.stringify(list(items)));
    // A byte that is not UTF-8 inside a string, as a broken sender might send.
    const broken = Buffer.from(JSON.stringify(list([item("x1", { userAgent: "AB" })])));
    broken[broken.indexOf("AB")] = 0xff;
    const pretty = Buffer.from(
      JSON.stringify(list([item("p0", { userAgent: "µ" }), item("p1")]), null, 2),
    );
    for (const body of [compact, broken, pretty]) {
      const events = parseEventListBody(body);
      const r = await ctx.store.ingest(events);
      for (const e of events) {
        const [d] = await ctx.store.list(filter(`auditID=${e.auditID}`), { limit: 1 });
        expect((await ctx.store.detail(d!.id))?.rawEvent).toBe(e.raw);
      }
      expect(r.duplicates).toBe(body === compact ? 1 : 0);
    }
    const [s] = await ctx.store.list(filter("auditID=s1"), { limit: 1 });
    expect((await ctx.store.detail(s!.id))?.rawEvent).not.toContain("aHVudGVyMg==");
    const [x] = await ctx.store.list(filter("auditID=x1"), { limit: 1 });
    expect(JSON.parse((await ctx.store.detail(x!.id))?.rawEvent ?? "{}").userAgent).toBe("\ufffdB");
  });

  it("reads every text of a batch whose texts fill several packed rows", async () => {
    const big = (i: number) =>
      JSON.parse(parsed(`big${i}`).raw) as Record<string, unknown> & { auditID: string };
    const items = Array.from({ length: 60 }, (_, i) => ({
      ...big(i),
      requestObject: {
        kind: "ConfigMap",
        data: { v: `${i}`.repeat(1 + (i % 7)) + "x".repeat(20_000) },
      },
    }));
    const events = parseEventListBody(Buffer.from(JSON.stringify(list(items))));
    const r = await ctx.store.ingest(events);
    expect(r.stored).toBe(60);
    const rows = await ctx.store.driver.query<{ id: number }>(sql`SELECT id FROM admission_events`);
    const bytes = events.reduce((n, e) => n + 1 + Buffer.byteLength(e.raw), 0);
    expect(rows.length).toBe(Math.ceil(bytes / PACKED_ROW_BYTES));
    const check = async (n: number) => {
      const listed = await ctx.store.list(all, { limit: 100 });
      expect(listed).toHaveLength(n);
      for (const d of listed) {
        const e = events.find((x) => x.auditID === d.auditID)!;
        expect((await ctx.store.detail(d.id))?.rawEvent).toBe(e.raw);
        expect(d.request).toEqual(e.request);
      }
    };
    await check(60);
  });

  it("packs a text that is not JSON and holds the separator without splitting it", () => {
    const e = { ...parsed("rs"), raw: '{"a":"x\x1ey"}' };
    const [[id, row]] = packedTextRows([7], [e]) as [[number, Uint8Array]];
    expect(id).toBe(7);
    expect(rowTexts(row, new Set([0]))).toEqual(new Map([[0, '{"a":"x y"}']]));
  });

  it("lists the decisions of a damaged packed row from their own rows, without their texts", async () => {
    const r = await ctx.store.ingest([parsed("k1", { deny: "d.example.com", ns: "b" })]);
    await ctx.store.driver.query(
      sql`UPDATE admission_events SET packed = ${Buffer.from("not brotli")}`,
    );
    const listed = await ctx.store.list(all, { limit: 10 });
    expect(listed.map((d) => [d.id, d.outcome, d.request.namespace])).toEqual(
      [...r.decisions].reverse().map((d) => [d.id, d.outcome, "b"]),
    );
    expect((await ctx.store.detail(r.decisions[0]!.id))?.rawEvent).toBe("");
  });
});
