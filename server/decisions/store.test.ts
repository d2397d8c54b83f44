/**
 * The decision store on a real SQLite file and on a real PostgreSQL server (started by the test
 * from Debian's package), running the same query layer: batches are all-or-nothing, retried
 * batches are not counted twice, filters and retention work, and everything survives reopening.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { parseAuditEvent, type ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { parseEventListBody } from "@/lib/admission/audit/audit-batch";
import { matchesDecisionFilter, parseDecisionFilter } from "@/lib/decisions/filter";
import { parsedEvent } from "../../test/parsed-event";
import { startPostgres, type TestPostgres } from "../../test/postgres";
import { PostgresDriver } from "./postgres";
import { sql, type Sql, type SqlDriver } from "./sql";
import { SqliteDriver } from "./sqlite";
import {
  DecisionStore,
  histogramStatement,
  listStatement,
  NAMED,
  PACKED_ROW_BYTES,
  packedTextRows,
  rowTexts,
  tallyStatement,
} from "./store";

const T0 = Date.parse("2026-11-23T10:00:00Z");

function parsed(
  auditID: string,
  opts: {
    ns?: string;
    user?: string;
    /** The user the request impersonated. */
    as?: string;
    hook?: string;
    deny?: string;
    t?: number;
  } = {},
): ParsedAuditEvent {
  const p = parseAuditEvent({
    auditID,
    stage: "ResponseComplete",
    verb: "create",
    requestURI: `/api/v1/namespaces/${opts.ns ?? "a"}/configmaps`,
    user: { username: opts.user ?? "alice", groups: ["g"] },
    ...(opts.as ? { impersonatedUser: { username: opts.as, groups: ["devs"] } } : {}),
    objectRef: {
      resource: "configmaps",
      namespace: opts.ns ?? "a",
      name: auditID,
      apiVersion: "v1",
    },
    stageTimestamp: new Date(opts.t ?? T0).toISOString(),
    responseStatus: opts.deny
      ? { code: 403, message: `admission webhook "${opts.deny}" denied the request: no` }
      : { code: 201 },
    annotations: {
      "mutation.webhook.admission.k8s.io/round_0_index_0": JSON.stringify({
        configuration: "cfg",
        webhook: opts.hook ?? "m.example.com",
        mutated: true,
      }),
    },
  });
  if (!p) throw new Error("fixture did not parse");
  return p;
}

/** An audit.k8s.io/v1 EventList of these events. */
const list = (items: unknown[]) => ({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items });

const all = parseDecisionFilter(new URLSearchParams());
const filter = (q: string) => parseDecisionFilter(new URLSearchParams(q));

let dir: string | undefined;
let file = "";
let pg: TestPostgres | undefined;
let store: DecisionStore;

interface Backend {
  name: string;
  /** A driver on the same database every time (so reopening sees what was stored). */
  driver(): SqlDriver;
  /** Prepares an empty database. */
  reset(): Promise<void>;
}

const BACKENDS: Backend[] = [
  {
    name: "SQLite",
    driver: () => new SqliteDriver(file),
    reset: async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-store-"));
      file = path.join(dir, "nested", "decisions.sqlite");
    },
  },
  {
    name: "PostgreSQL",
    driver: () => new PostgresDriver(pg?.url ?? ""),
    reset: async () => {
      const d = new PostgresDriver(pg?.url ?? "");
      await d.exec(
        "DROP TABLE IF EXISTS admission_calls; DROP TABLE IF EXISTS admission_names; DROP TABLE IF EXISTS admission_decisions; DROP TABLE IF EXISTS admission_events; DROP TABLE IF EXISTS admission_hook_spans; DROP TABLE IF EXISTS decisions; DROP TABLE IF EXISTS decision_events; DROP TABLE IF EXISTS audit_log_cursor;",
      );
      await d.close();
    },
  },
];

beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);

afterAll(async () => {
  await pg?.stop();
});

describe.each(BACKENDS)("DecisionStore on $name", (backend) => {
  function open(maxRows = 1_000_000, maxAgeMs = 7 * 86_400_000): DecisionStore {
    return new DecisionStore(backend.driver(), { maxAgeMs, maxRows });
  }

  beforeEach(async () => {
    await backend.reset();
    store = open();
    await store.migrate();
  });

  afterEach(async () => {
    await store.driver.close().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("stores a batch and lists its decisions newest first with their request facts", async () => {
    const r = await store.ingest([parsed("e1"), parsed("e2", { deny: "d.example.com" })]);
    expect(r).toMatchObject({ stored: 2, duplicates: 0 });
    expect(r.decisions).toHaveLength(3);
    const items = await store.list(all, { limit: 10 });
    expect(items.map((d) => [d.auditID, d.hook, d.outcome])).toEqual([
      ["e2", "d.example.com", "denied"],
      ["e2", "m.example.com", "mutated"],
      ["e1", "m.example.com", "mutated"],
    ]);
    expect(items[0]?.request).toMatchObject({ namespace: "a", user: "alice", operation: "CREATE" });
    expect(items.map((d) => d.id)).toEqual(r.decisions.map((d) => d.id).reverse());
  });

  it("skips events of a retried batch, counting them as duplicates", async () => {
    await store.ingest([parsed("e1"), parsed("e2")]);
    const again = await store.ingest([parsed("e2"), parsed("e3")]);
    expect(again).toMatchObject({ stored: 1, duplicates: 1 });
    expect(await store.counts()).toEqual({ events: 3, decisions: 3 });
  });

  it("stores nothing of a batch when one event cannot be stored", async () => {
    const bad = parsed("bad");
    const broken: ParsedAuditEvent = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, message: null as unknown as string }],
    };
    await expect(store.ingest([parsed("ok"), broken])).rejects.toThrow(/NOT NULL|not-null/i);
    expect(await store.counts()).toEqual({ events: 0, decisions: 0 });
    expect(await store.hasEvent("ok", "ResponseComplete")).toBe(false);
    // …and the store keeps working after the failed transaction.
    await store.ingest([parsed("ok")]);
    expect(await store.hasEvent("ok", "ResponseComplete")).toBe(true);
  });

  it("forgets the ids of names a batch stored in a transaction that failed: names stored after it get ids of their own", async () => {
    const first = { user: "first-user", ns: "first-ns", hook: "first.example.com" };
    const bad = parsed("bad", first);
    const broken: ParsedAuditEvent = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, message: null as unknown as string }],
    };
    await expect(store.ingest([broken])).rejects.toThrow(/NOT NULL|not-null/i);
    // Other names first (on SQLite they take the ids the rolled-back ones had), then the same.
    await store.ingest([
      parsed("other", { user: "second-user", ns: "second-ns", hook: "second.example.com" }),
    ]);
    await store.ingest([parsed("again", first)]);
    const got = await store.list(all, { limit: 10 });
    expect(got.map((d) => [d.auditID, d.hook, d.stage, d.outcome])).toEqual([
      ["again", "first.example.com", "ResponseComplete", "mutated"],
      ["other", "second.example.com", "ResponseComplete", "mutated"],
    ]);
    const ids = async (q: string) =>
      (await store.list(filter(q), { limit: 10 })).map((d) => d.auditID);
    expect(await ids("user=first-user&namespace=first-ns")).toEqual(["again"]);
    expect(await ids("user=second-user&namespace=second-ns")).toEqual(["other"]);
    expect(await ids("hook=first.example.com")).toEqual(["again"]);
  });

  it("stores names of any length: one longer than an index entry may be is keyed by its digest", async () => {
    const long = (c: string) => `${"u".repeat(600)}${c}`;
    // Random, so PostgreSQL cannot compress it below its index entry limit (2,704 bytes).
    const hook = `${randomBytes(3000).toString("base64")}.example.com`;
    await store.ingest([
      parsed("long-1", { user: long("1"), hook }),
      parsed("long-2", { user: long("2"), hook }),
      parsed("short", { user: "=".repeat(3) }),
    ]);
    const ids = async (q: URLSearchParams) =>
      (await store.list(parseDecisionFilter(q), { limit: 10 })).map((d) => d.auditID);
    expect(await ids(new URLSearchParams({ user: long("2") }))).toEqual(["long-2"]);
    expect(await ids(new URLSearchParams({ user: long("3") }))).toEqual([]);
    expect(await ids(new URLSearchParams({ user: "===" }))).toEqual(["short"]);
    const got = await store.list(all, { limit: 10 });
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
    const r = await store.ingest([e, parsed("nul-2")]);
    expect(r).toMatchObject({ stored: 2, duplicates: 0 });
    const stored =
      backend.name === "SQLite"
        ? (t: string) => t
        : (t: string) => t.replaceAll("\u0000", "\ufffd");
    const byUser = await store.list(filter(`user=${encodeURIComponent(nul)}`), { limit: 10 });
    expect(byUser.map((d) => [d.auditID, d.outcome, d.message])).toEqual([
      ["nul-1", "denied", stored("no \u0000 here")],
      ["nul-1", "mutated", ""],
    ]);
    expect(byUser[0]?.request.user).toBe(nul);
    // After a restart (its names not in memory), and beside a user whose name holds U+FFFD.
    await store.driver.close();
    store = open();
    await store.migrate();
    await store.ingest([
      parsed("nul-3", { user: nul, ns: "n\\" }),
      parsed("fffd", { user: "a\ufffdb", ns: "n" }),
    ]);
    const ids = async (q: string) =>
      (await store.list(filter(q), { limit: 10 })).map((d) => [d.auditID, d.stage]);
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

  it("saves an audit log cursor with the events it covers, and only if they are stored", async () => {
    const cursor = { name: "/var/log/audit.log", dev: "64768", ino: "1234567", offset: 4096 };
    expect(await store.cursor(cursor.name)).toBeUndefined();
    await store.ingest([parsed("c1")], cursor);
    expect(await store.cursor(cursor.name)).toEqual(cursor);
    // A cursor alone (lines without decisions) moves too, and replaces the previous one.
    await store.ingest([], { ...cursor, ino: "7654321", offset: 10 });
    expect(await store.cursor(cursor.name)).toEqual({ ...cursor, ino: "7654321", offset: 10 });
    // A batch that fails leaves the cursor where it was: the follower reads those lines again.
    const bad = parsed("c2");
    const broken: ParsedAuditEvent = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, message: null as unknown as string }],
    };
    await expect(store.ingest([broken], { ...cursor, offset: 99_999 })).rejects.toThrow();
    expect((await store.cursor(cursor.name))?.offset).toBe(10);
    expect(await store.hasEvent("c2", "ResponseComplete")).toBe(false);
  });

  it("stores concurrent batches in one group commit, each answered with its own result", async () => {
    const results = await Promise.all([
      store.ingest([parsed("g1"), parsed("g2")]),
      store.ingest([parsed("g2"), parsed("g3")]),
      store.ingest([parsed("g4")]),
    ]);
    expect(results.map((r) => [r.stored, r.duplicates])).toEqual([
      [2, 0],
      [1, 1],
      [1, 0],
    ]);
    expect(await store.counts()).toEqual({ events: 4, decisions: 4 });
    const bad = parsed("bad");
    const broken = {
      ...bad,
      decisions: [{ ...bad.decisions[0]!, hook: null as unknown as string }],
    };
    const settled = await Promise.allSettled([
      store.ingest([parsed("g5")]),
      store.ingest([broken]),
    ]);
    // One transaction: the failing batch takes its group down with it, nothing half-stored.
    expect(settled.map((x) => x.status)).toEqual(["rejected", "rejected"]);
    expect(await store.hasEvent("g5", "ResponseComplete")).toBe(false);
  });

  it("filters by hook, outcome, namespace, user, resource, operation, request and time", async () => {
    await store.ingest([
      parsed("e1", { ns: "a", user: "alice", t: T0 }),
      parsed("e2", { ns: "b", user: "bob", hook: "other.example.com", t: T0 + 60_000 }),
      parsed("e3", { ns: "b", deny: "d.example.com", t: T0 + 120_000 }),
    ]);
    const ids = async (q: string) =>
      (await store.list(filter(q), { limit: 10 })).map((d) => d.auditID);
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
    const page = await store.list(all, { limit: 2 });
    const next = await store.list(all, { limit: 2, before: page[1]!.id });
    expect([...page, ...next].map((d) => d.auditID)).toEqual(["e3", "e3", "e2", "e1"]);
    expect((await store.after(all, page[1]!.id, 10)).map((d) => d.id)).toEqual([page[0]!.id]);
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
    await store.ingest([
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
      (await store.list(filter(`hook=webhook.cert-manager.io&${q}`), { limit: 10 }))
        .map((d) => d.auditID)
        .sort();
    expect(await ids("")).toEqual(["m1", "m2", "s1", "v1"]);
    expect(await ids("phase=validating&configuration=cert-manager-webhook")).toEqual(["s1", "v1"]);
    expect(await ids("phase=mutating&configuration=cert-manager-webhook")).toEqual(["m1", "s1"]);
    expect(await ids("phase=mutating&configuration=another-mutating")).toEqual(["m2", "s1"]);
    // The live stream's match agrees with the query.
    const every = await store.list(all, { limit: 10 });
    for (const q of ["phase=validating", "phase=mutating&configuration=another-mutating"]) {
      const f = filter(`hook=webhook.cert-manager.io&${q}`);
      expect(every.filter((d) => matchesDecisionFilter(d, f)).map((d) => d.id)).toEqual(
        (await store.list(f, { limit: 10 })).map((d) => d.id),
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
    await store.ingest([
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
    const kinds = (await store.list(filter("policy=p"), { limit: 10 })).map((d) => d.kind);
    expect(kinds.sort()).toEqual(["mutating-policy", "validating-policy", "validating-policy"]);
    const ids = async (q: string) =>
      (await store.list(filter(`policy=p&${q}`), { limit: 10 })).map((d) => d.auditID).sort();
    expect(await ids("phase=validating")).toEqual(["v1", "v2"]);
    expect(await ids("phase=mutating")).toEqual(["m1"]);
    expect(await ids("phase=validating&configuration=b2")).toEqual(["v2"]);
    // The live stream's match agrees with the query.
    const every = await store.list(all, { limit: 10 });
    for (const q of ["phase=validating", "phase=mutating", "phase=validating&configuration=b1"]) {
      const f = filter(`policy=p&${q}`);
      expect(every.filter((d) => matchesDecisionFilter(d, f)).map((d) => d.id)).toEqual(
        (await store.list(f, { limit: 10 })).map((d) => d.id),
      );
    }
  });

  it("narrows the whole feed to one phase: its webhooks' and its policies' decisions", async () => {
    const event = (auditID: string, over: Record<string, unknown>) =>
      parsedEvent(auditID, T0, { responseStatus: { code: 201 }, ...over });
    await store.ingest([
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
      (await store.list(filter(q), { limit: 10 })).map((d) => d.auditID).sort();
    expect(await ids("phase=mutating")).toEqual(["mp", "mw"]);
    expect(await ids("phase=validating")).toEqual(["vp", "vw"]);
    const every = await store.list(all, { limit: 10 });
    for (const q of ["phase=mutating", "phase=validating"]) {
      const f = filter(q);
      expect(every.filter((d) => matchesDecisionFilter(d, f)).map((d) => d.id)).toEqual(
        (await store.list(f, { limit: 10 })).map((d) => d.id),
      );
    }
  });

  it("stores requests whose long Audit-IDs share their first characters apart, each found by the ID its client sent", async () => {
    const long = `trace-${"a".repeat(130)}`;
    const r = await store.ingest([parsed(long), parsed(`${long}b`, { deny: "d.example.com" })]);
    expect(r).toMatchObject({ stored: 2, duplicates: 0 });
    const found = await store.list(filter(`auditID=${encodeURIComponent(long)}`), { limit: 10 });
    expect(found.map((d) => d.outcome)).toEqual(["mutated"]);
    const again = await store.list(filter(`auditID=${encodeURIComponent(found[0]!.auditID)}`), {
      limit: 10,
    });
    expect(again.map((d) => d.id)).toEqual(found.map((d) => d.id));
  });

  it("files an impersonated request under the user admission saw, shown with who impersonated", async () => {
    await store.ingest([parsed("imp", { user: "admin", as: "jane" }), parsed("own")]);
    const jane = await store.list(filter("user=jane"), { limit: 10 });
    expect(jane.map((d) => d.auditID)).toEqual(["imp"]);
    expect(jane[0]?.request).toMatchObject({
      user: "jane",
      groups: ["devs"],
      impersonatedBy: "admin",
    });
    expect(await store.list(filter("user=admin"), { limit: 10 })).toEqual([]);
    const detail = await store.detail(jane[0]!.id);
    expect(detail?.decision.request).toMatchObject({ user: "jane", impersonatedBy: "admin" });
  });

  it("serves the hook and policy filters, of the list and of the chart, through the hook's spans (SQLite) or index (PostgreSQL)", async () => {
    // What the planner would choose: PostgreSQL costs a tiny table as a sequential scan anyway,
    // so there it is told to avoid one; SQLite plans without statistics, as in use.
    const dialect = store.driver.dialect;
    const plan = (q: Sql) =>
      store.driver.transaction(async (tx) => {
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
      // Newest first with no sort of all the hook's decisions: only each span's own rows.
      if (dialect === "sqlite") {
        expect(list).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
        expect(list).toMatch(/TEMP B-TREE FOR LAST TERM OF ORDER BY/);
      }
    }
  });

  it("reads a hook's decisions as the unfiltered store has them, page by page and by time; SQLite's spans also after migrating from the hook index", async () => {
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
    for (let b = 0; b < 4; b++) await store.ingest(batch(b));
    // Two batches in one group commit.
    await Promise.all([store.ingest(batch(4)), store.ingest(batch(5))]);
    const from = T0 + 20_500;
    const to = T0 + 50_500;
    const check = async () => {
      const everything = await store.list(all, { limit: 1000 });
      expect(everything.length).toBeGreaterThan(72);
      for (const h of hooks) {
        const want = everything.filter((d) => d.hook === h);
        expect(want.length).toBeGreaterThan(10);
        const f = filter(`hook=${h}`);
        // Page by page, newest first.
        const got: number[] = [];
        for (let before: number | undefined; ;) {
          const page = await store.list(f, { limit: 5, before });
          if (page.length === 0) break;
          got.push(...page.map((d) => d.id));
          before = page.at(-1)?.id;
        }
        expect(got).toEqual(want.map((d) => d.id));
        // After a cursor, oldest first.
        const cursor = want[7]!.id;
        expect((await store.after(f, cursor, 100)).map((d) => d.id)).toEqual(
          want
            .slice(0, 7)
            .map((d) => d.id)
            .reverse(),
        );
        // A time range that cuts through batches, in the list and in the chart.
        const inRange = want.filter((d) => d.time >= from && d.time < to);
        expect(
          (await store.list(filter(`hook=${h}&from=${from}&to=${to}`), { limit: 100 })).map(
            (d) => d.id,
          ),
        ).toEqual(inRange.map((d) => d.id));
        const chart = await store.histogram(filter(`hook=${h}&from=${from}&to=${to}`), 10_000);
        const counted = chart.flatMap((b) => Object.entries(b.counts));
        for (const outcome of ["mutated", "denied"] as const)
          expect(counted.filter(([o]) => o === outcome).reduce((t, [, c]) => t + (c ?? 0), 0)).toBe(
            inRange.filter((d) => d.outcome === outcome).length,
          );
      }
      expect(await store.list(filter("hook=none.example.com"), { limit: 5 })).toEqual([]);
    };
    await check();
    if (store.driver.dialect !== "sqlite") return;

    // A SQLite store written by a version with names as text, the index on the hook and no
    // spans: migrating stores each name once, adds spans for what it holds and drops the index.
    // Among the names, some that are not their own key (see nameKey).
    const odd = ["a\u0000b", "u".repeat(600), "domain\\user"];
    await store.ingest(
      odd.map((user, i) => parsed(`odd${i}`, { user, hook: hooks[0], t: T0 + 100_000 + i })),
    );
    const plain = "id, time, audit_id, seq, event_id, code, message, patch, round, idx";
    const columns = plain.split(", ");
    await store.driver.exec(
      `CREATE TABLE admission_decisions AS SELECT ${columns.map((c) => `c.${c}`).join(", ")}, ${NAMED.map(
        (c) => `(SELECT text FROM admission_names n WHERE n.id = c.${c}) AS ${c}`,
      ).join(", ")} FROM admission_calls c;
      DELETE FROM admission_calls; DELETE FROM admission_names; DELETE FROM admission_hook_spans;
      CREATE INDEX admission_decisions_hook ON admission_decisions (hook);`,
    );
    await store.driver.close();
    store = open();
    await store.migrate();
    const left = await store.driver.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('admission_decisions', 'admission_decisions_hook')`,
    );
    expect(Number(left[0]?.n)).toBe(0);
    const [names] = await store.driver.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM admission_names`,
    );
    expect(Number(names?.n)).toBeLessThan(20);
    const [spans] = await store.driver.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM admission_hook_spans`,
    );
    expect(Number(spans?.n)).toBe(hooks.length);
    await check();
    for (const [i, user] of odd.entries()) {
      const f = parseDecisionFilter(new URLSearchParams({ user }));
      expect((await store.list(f, { limit: 5 })).map((d) => d.auditID)).toEqual([`odd${i}`]);
    }
    // New batches after the migration get spans of their own.
    await store.ingest(batch(6));
    await check();
  });

  it("stores the texts of a batch's events together, compressed, each read back whole", async () => {
    // ASCII texts and texts that are not.
    const events = Array.from({ length: 40 }, (_, i) =>
      parsed(`t${i}`, { user: i >= 36 ? `zoë-${i}` : "alice" }),
    );
    // A sender's own text with newlines (pretty-printed): kept as it is.
    const pretty = { ...JSON.parse(events[20]!.raw), userAgent: "line\nbreak" };
    events[20] = parseAuditEvent(pretty, JSON.stringify(pretty, null, 2))!;
    expect(events[20].raw).toContain("\n");
    const r = await store.ingest(events);
    expect(r.stored).toBe(40);
    const rows = await store.driver.query<{ raw: string; packed: Uint8Array }>(
      sql`SELECT raw, packed FROM admission_events ORDER BY id`,
    );
    const bytes = events.reduce((n, e) => n + 1 + Buffer.byteLength(e.raw), 0);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.raw).toBe("");
    expect(rows[0]?.packed).toBeInstanceOf(Uint8Array);
    expect(rows[0]?.packed.length).toBeLessThan(bytes / 4);
    for (const [i, d] of r.decisions.entries())
      expect((await store.detail(d.id))?.rawEvent).toBe(events[i]!.raw);
    expect((await store.list(filter("auditID=t20"), { limit: 1 }))[0]?.request).toEqual(
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
    await store.ingest(parseEventListBody(Buffer.from(JSON.stringify(list([item("b2")])))));
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
      const r = await store.ingest(events);
      for (const e of events) {
        const [d] = await store.list(filter(`auditID=${e.auditID}`), { limit: 1 });
        expect((await store.detail(d!.id))?.rawEvent).toBe(e.raw);
      }
      expect(r.duplicates).toBe(body === compact ? 1 : 0);
    }
    const [s] = await store.list(filter("auditID=s1"), { limit: 1 });
    expect((await store.detail(s!.id))?.rawEvent).not.toContain("aHVudGVyMg==");
    const [x] = await store.list(filter("auditID=x1"), { limit: 1 });
    expect(JSON.parse((await store.detail(x!.id))?.rawEvent ?? "{}").userAgent).toBe("\ufffdB");
  });

  it("reads every text of a batch whose texts fill several packed rows, and the text rows of a database written before packing", async () => {
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
    const r = await store.ingest(events);
    expect(r.stored).toBe(60);
    const rows = await store.driver.query<{ id: number }>(sql`SELECT id FROM admission_events`);
    const bytes = events.reduce((n, e) => n + 1 + Buffer.byteLength(e.raw), 0);
    expect(rows.length).toBe(Math.ceil(bytes / PACKED_ROW_BYTES));
    const check = async (n: number) => {
      const listed = await store.list(all, { limit: 100 });
      expect(listed).toHaveLength(n);
      for (const d of listed) {
        const e = events.find((x) => x.auditID === d.auditID)!;
        expect((await store.detail(d.id))?.rawEvent).toBe(e.raw);
        expect(d.request).toEqual(e.request);
      }
    };
    await check(60);
    // The same texts as the version before packing stored them, in its table (no `packed`
    // column): the first half in one row, a newline and the texts joined by newlines; the rest a
    // row each, as versions before that stored every text.
    const ids = r.decisions.map((d) => d.id);
    await store.driver.exec(
      `DROP TABLE admission_events; CREATE TABLE admission_events (id ${store.driver.dialect === "sqlite" ? "INTEGER" : "BIGINT"} PRIMARY KEY, raw TEXT NOT NULL)`,
    );
    const old: Array<[number, string]> = [
      [
        ids[0]!,
        "\n" +
          events
            .slice(0, 30)
            .map((e) => e.raw)
            .join("\n"),
      ],
      ...events.slice(30).map((e, i): [number, string] => [ids[30 + i]!, e.raw]),
    ];
    for (const [id, text] of old)
      await store.driver.query(sql`INSERT INTO admission_events (id, raw) VALUES (${id}, ${text})`);
    await store.driver.close();
    store = open();
    await store.migrate();
    await check(60);
    // New batches are packed beside them.
    const more = parseEventListBody(Buffer.from(JSON.stringify(list([big(60), big(61)]))));
    events.push(...more);
    await store.ingest(more);
    await check(62);
  });

  it("packs a text that is not JSON and holds the separator without splitting it", () => {
    const e = { ...parsed("rs"), raw: '{"a":"x\x1ey"}' };
    const [[id, row]] = packedTextRows([7], [e]) as [[number, Uint8Array]];
    expect(id).toBe(7);
    expect(rowTexts(row, new Set([0]))).toEqual(new Map([[0, '{"a":"x y"}']]));
  });

  it("lists the decisions of a damaged packed row from their own rows, without their texts", async () => {
    const r = await store.ingest([parsed("k1", { deny: "d.example.com", ns: "b" })]);
    await store.driver.query(
      sql`UPDATE admission_events SET packed = ${Buffer.from("not brotli")}`,
    );
    const listed = await store.list(all, { limit: 10 });
    expect(listed.map((d) => [d.id, d.outcome, d.request.namespace])).toEqual(
      [...r.decisions].reverse().map((d) => [d.id, d.outcome, "b"]),
    );
    expect((await store.detail(r.decisions[0]!.id))?.rawEvent).toBe("");
  });

  it("counts decisions by outcome over time", async () => {
    await store.ingest([
      parsed("e1", { t: T0 }),
      parsed("e2", { t: T0 + 5_000, deny: "d" }),
      parsed("e3", { t: T0 + 61_000 }),
    ]);
    expect(await store.histogram({ ...all, from: T0, to: T0 + 120_000 }, 60_000)).toEqual([
      { start: T0, counts: { mutated: 2, denied: 1 } },
      { start: T0 + 60_000, counts: { mutated: 1 } },
    ]);
  });

  it("counts decisions by decider and outcome within a time range, largest first", async () => {
    await store.ingest([
      parsed("e1", { t: T0 - 1 }),
      parsed("e2", { t: T0, deny: "d.example.com", ns: "b" }),
      parsed("e3", { t: T0 + 5_000, deny: "d.example.com" }),
      parsed("e4", { t: T0 + 6_000, hook: "other.example.com" }),
      parsed("e5", { t: T0 + 60_000 }),
    ]);
    const window = { ...all, from: T0, to: T0 + 60_000 };
    const tallies = await store.tally(window, 10);
    expect(tallies.map(({ kind: _, ...t }) => t)).toEqual([
      { hook: "d.example.com", outcome: "denied", count: 2, last: T0 + 5_000 },
      { hook: "m.example.com", outcome: "mutated", count: 2, last: T0 + 5_000 },
      { hook: "other.example.com", outcome: "mutated", count: 1, last: T0 + 6_000 },
    ]);
    expect(tallies[1]?.kind).toBe("mutating-webhook");
    expect(await store.tally(window, 1)).toHaveLength(1);
    expect(await store.tally({ ...window, namespace: "b" }, 10)).toMatchObject([
      { hook: "d.example.com", count: 1 },
      { hook: "m.example.com", count: 1 },
    ]);
    expect(await store.tally({ ...all, from: T0 + 60_001, to: T0 + 120_000 }, 10)).toEqual([]);
    if (store.driver.dialect === "sqlite") {
      // Only the window's decisions are read: by the unique index, which leads with the time.
      const plan = await store.driver.query<{ detail: string }>({
        text: `EXPLAIN QUERY PLAN ${tallyStatement(window, 10, "sqlite").text}`,
        params: tallyStatement(window, 10, "sqlite").params,
      });
      expect(plan.map((r) => r.detail).join("\n")).toMatch(
        /SEARCH d USING INDEX \S+ \(time>\? AND time<\?\)/,
      );
    }
  });

  it("returns a decision with its raw event", async () => {
    const [d] = (await store.ingest([parsed("e1")])).decisions;
    const detail = await store.detail(d!.id);
    expect(detail?.decision.auditID).toBe("e1");
    expect(JSON.parse(detail?.rawEvent ?? "{}")).toMatchObject({ auditID: "e1" });
    expect(await store.detail(d!.id + 1000)).toBeUndefined();
  });

  it("keeps everything across a reopen of the file", async () => {
    await store.ingest([parsed("e1"), parsed("e2")]);
    await store.driver.close();
    store = open();
    await store.migrate();
    expect(await store.counts()).toEqual({ events: 2, decisions: 2 });
    expect((await store.ingest([parsed("e2")])).duplicates).toBe(1);
  });

  it("stores an event's later decisions with it: request facts, raw event, retention", async () => {
    const two = (id: string, t = T0) => parsed(id, { deny: "d.example.com", t });
    const r = await store.ingest([two("m1"), parsed("s1"), two("m2")]);
    expect(r).toMatchObject({ stored: 3, duplicates: 0 });
    expect(r.decisions.map((d) => d.id)).toEqual(
      [...r.decisions.map((d) => d.id)].sort((a, b) => a - b),
    );
    expect(await store.counts()).toEqual({ events: 3, decisions: 5 });
    const denied = await store.list(filter("outcome=denied&auditID=m1"), { limit: 10 });
    expect(denied).toHaveLength(1);
    expect(denied[0]?.request).toEqual(r.decisions.find((d) => d.auditID === "m1")?.request);
    expect(JSON.parse((await store.detail(denied[0]!.id))?.rawEvent ?? "{}")).toMatchObject({
      auditID: "m1",
    });
    // A retried batch is skipped whole, later decisions included.
    expect(await store.ingest([two("m1")])).toMatchObject({ stored: 0, duplicates: 1 });
    expect(await store.counts()).toEqual({ events: 3, decisions: 5 });
    // The row limit cuts whole events: m1's later decision goes with its first one.
    await store.driver.close();
    store = open(1000);
    await store.migrate();
    await store.ingest(Array.from({ length: 997 }, (_, i) => parsed(`f${i}`)));
    // 1002 rows: the cut falls on s1 (the second row), so m1's first row and s1 go, and m1's
    // later decision (stored after m2's first row) with them; m2 stays whole.
    expect(await store.prune(T0)).toBe(3);
    expect(await store.counts()).toEqual({ events: 998, decisions: 999 });
    expect(await store.hasEvent("m1", "ResponseComplete")).toBe(false);
    expect(await store.list(filter("auditID=m1"), { limit: 10 })).toEqual([]);
    expect((await store.list(filter("auditID=m2"), { limit: 10 })).map((x) => x.outcome)).toEqual([
      "denied",
      "mutated",
    ]);
  });

  it("moves the decisions of the two-table schema into the one table, ids kept", async () => {
    await store.driver.close();
    await backend.reset();
    const d = backend.driver();
    const id =
      d.dialect === "sqlite"
        ? "INTEGER PRIMARY KEY"
        : "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
    // The schema as released before one row per event.
    await d.exec(`
CREATE TABLE decision_events (id ${id}, audit_id TEXT NOT NULL, stage TEXT NOT NULL, time BIGINT NOT NULL,
  request TEXT NOT NULL, raw TEXT NOT NULL, UNIQUE (time, audit_id, stage));
CREATE TABLE decisions (id ${id}, event_id BIGINT NOT NULL, time BIGINT NOT NULL, kind TEXT NOT NULL,
  hook TEXT NOT NULL, configuration TEXT NOT NULL, outcome TEXT NOT NULL, code INTEGER, message TEXT NOT NULL,
  patch TEXT, round INTEGER, idx INTEGER, namespace TEXT NOT NULL, user_name TEXT NOT NULL,
  resource TEXT NOT NULL, operation TEXT NOT NULL);
CREATE TABLE audit_log_cursor (name TEXT PRIMARY KEY, dev TEXT NOT NULL, ino TEXT NOT NULL, pos BIGINT NOT NULL);
CREATE INDEX decisions_time ON decisions (time);
CREATE INDEX decisions_hook ON decisions (hook, id);`);
    const old = [parsed("o1"), parsed("o2", { deny: "d.example.com", ns: "b" })];
    let decisionId = 10;
    for (const [i, e] of old.entries()) {
      await d.query({
        text: "INSERT INTO decision_events (id, audit_id, stage, time, request, raw) VALUES (?, ?, ?, ?, ?, ?)",
        params: [i + 1, e.auditID, e.stage, e.time, JSON.stringify(e.request), e.raw],
      });
      for (const c of e.decisions)
        await d.query({
          text: "INSERT INTO decisions (id, event_id, time, kind, hook, configuration, outcome, code, message, patch, round, idx, namespace, user_name, resource, operation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          params: [
            decisionId++,
            i + 1,
            e.time,
            c.kind,
            c.hook,
            c.configuration,
            c.outcome,
            c.code ?? null,
            c.message,
            c.patch ?? null,
            c.round ?? null,
            c.index ?? null,
            e.request.namespace,
            e.request.user,
            e.request.resource,
            e.request.operation,
          ],
        });
    }
    await d.close();
    store = open();
    await store.migrate();
    expect(await store.counts()).toEqual({ events: 2, decisions: 3 });
    const items = await store.list(all, { limit: 10 });
    expect(items.map((x) => [x.id, x.auditID, x.outcome])).toEqual([
      [12, "o2", "denied"],
      [11, "o2", "mutated"],
      [10, "o1", "mutated"],
    ]);
    expect(items[0]?.request).toEqual(old[1]?.request);
    expect((await store.detail(12))?.rawEvent).toBe(old[1]?.raw);
    expect(await store.list(filter("namespace=b&outcome=denied"), { limit: 10 })).toHaveLength(1);
    // Old events still count as stored; new ones are numbered after the moved ones.
    expect(await store.ingest([parsed("o1"), parsed("n1")])).toMatchObject({
      stored: 1,
      duplicates: 1,
    });
    expect((await store.list(all, { limit: 1 }))[0]?.id).toBeGreaterThan(12);
    // Opening again finds nothing left to move.
    await store.migrate();
    expect(await store.counts()).toEqual({ events: 3, decisions: 4 });
  });

  it("applies retention by age and by row count, deleting the events with their decisions", async () => {
    await store.driver.close();
    store = open(1000, 3_600_000);
    await store.migrate();
    const old = Array.from({ length: 5 }, (_, i) => parsed(`old${i}`, { t: T0 - 7_200_000 }));
    const fresh = Array.from({ length: 1500 }, (_, i) => parsed(`new${i}`, { t: T0 }));
    await store.ingest(old);
    await store.ingest(fresh);
    expect(await store.prune(T0)).toBe(505);
    expect(await store.counts()).toEqual({ events: 1000, decisions: 1000 });
    const newest = await store.list(all, { limit: 1 });
    expect(newest[0]?.auditID).toBe("new1499");
    expect(await store.hasEvent("old0", "ResponseComplete")).toBe(false);
    expect(await store.hasEvent("new499", "ResponseComplete")).toBe(false);
    expect(await store.hasEvent("new500", "ResponseComplete")).toBe(true);
    // Texts shared with a deleted event stay for the stored ones; rows of none are deleted.
    for (const id of ["new500", "new1499"]) {
      const [d] = await store.list(filter(`auditID=${id}`), { limit: 1 });
      expect(JSON.parse((await store.detail(d!.id))?.rawEvent ?? "{}")).toMatchObject({
        auditID: id,
      });
    }
    const [first] = await store.list(filter("auditID=new500"), { limit: 1 });
    const [kept] = await store.driver.query<{ n: number | string }>(
      sql`SELECT COUNT(*) AS n FROM admission_events WHERE id <= ${first!.id}`,
    );
    expect(Number(kept?.n)).toBe(1);
    // SQLite: the old batch's span covers no stored decision any more: gone.
    if (store.driver.dialect === "sqlite") {
      const [spans] = await store.driver.query<{ n: number | string }>(
        sql`SELECT COUNT(*) AS n FROM admission_hook_spans`,
      );
      expect(Number(spans?.n)).toBe(1);
    }
    expect(await store.list(filter("hook=m.example.com"), { limit: 2000 })).toHaveLength(1000);
  });

  it("prunes a few decisions a transaction, leaving whole events, to the same end as at once", async () => {
    await store.driver.close();
    store = open(1000, 3_600_000);
    await store.migrate();
    // Every third event has a later decision (stored after the batch's first ones).
    const event = (id: string, i: number, t: number) =>
      i % 3 === 0 ? parsed(id, { deny: "d.example.com", t }) : parsed(id, { t });
    await store.ingest(
      Array.from({ length: 300 }, (_, i) => event(`old${i}`, i, T0 - 7_200_000 - i)),
    );
    await store.ingest(Array.from({ length: 1500 }, (_, i) => event(`new${i}`, i, T0 + i)));
    const transactions = vi.spyOn(store.driver, "transaction");
    // Ids: old firsts 1–300, their later decisions 301–400; new firsts 401–1900, later 1901–2400.
    // Age takes all 400 old rows; the 1,001st newest row is id 1400 (new999): new0–new999 go,
    // with the 334 later decisions among them. Left: new1000–new1499 and 166 later decisions.
    expect(await store.prune(T0, 50)).toBe(400 + 1000 + 334);
    // Age: 50 rows or 51 (an event's two) a transaction; the cut: 50 ids of first decisions.
    expect(transactions.mock.calls.length).toBeGreaterThanOrEqual(Math.ceil(400 / 51) + 1000 / 50);
    expect(await store.counts()).toEqual({ events: 500, decisions: 666 });
    const rows = await store.driver.query<{ audit_id: string; n: number | string }>(
      sql`SELECT audit_id, COUNT(*) AS n FROM admission_calls GROUP BY audit_id`,
    );
    const kept = new Map(rows.map((r) => [r.audit_id, Number(r.n)]));
    for (let i = 0; i < 1500; i++)
      expect(kept.get(`new${i}`), `new${i}`).toBe(i < 1000 ? undefined : i % 3 === 0 ? 2 : 1);
    // The oldest kept event still reads its text; nothing more to prune.
    const [first] = await store.list(filter("auditID=new1000"), { limit: 1 });
    expect(JSON.parse((await store.detail(first!.id))?.rawEvent ?? "{}")).toMatchObject({
      auditID: "new1000",
    });
    expect(await store.prune(T0, 50)).toBe(0);
  });
});

/**
 * Runs `fn` on a store over a fresh SQLite file (decisions kept 7 days, at most `maxRows`), then
 * closes it and removes its folder.
 */
async function onSqlite(
  maxRows: number,
  fn: (s: DecisionStore, driver: SqliteDriver, folder: string) => Promise<void>,
): Promise<void> {
  const folder = mkdtempSync(path.join(os.tmpdir(), "portcullis-sqlite-"));
  const driver = new SqliteDriver(path.join(folder, "decisions.sqlite"));
  const s = new DecisionStore(driver, { maxAgeMs: 7 * 86_400_000, maxRows });
  try {
    await s.migrate();
    await fn(s, driver, folder);
  } finally {
    await driver.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

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

describe("DecisionStore replicas sharing PostgreSQL", { timeout: 30_000 }, () => {
  const opened: DecisionStore[] = [];
  const stops: Array<() => Promise<void>> = [];
  const openPg = async () => {
    const s = new DecisionStore(new PostgresDriver(pg?.url ?? ""), {
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
    await BACKENDS[1]?.reset();
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
    await BACKENDS[1]?.reset();
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
