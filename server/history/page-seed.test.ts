/**
 * The history pages' first screens read on the server: the newest page of a timeline of 10,000
 * changes (with its diffs, without the objects), the recent changes for a URL's filter as the API
 * reads them, nothing when the identity may not read decisions or the seed takes too long, and
 * the store's query for a first page walking an index (no scan, no sort) at 10,000 changes on
 * SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangeDraft } from "@/lib/admission/history/changes";
import { sql } from "@/server/decisions/sql";
import { PostgresDriver } from "@/server/decisions/postgres";
import { SqliteDriver } from "@/server/decisions/sqlite";
import { usePostgres } from "@/server/decisions/store/test-support";
import { TIMELINE_FIRST_SCREEN } from "@/lib/api/history";
import { recentChangesSeedWith, timelineSeedWith, type SeedAccess } from "./page-seed";
import { timelineOf } from "./service";
import { HistoryStore } from "./store";

const KIND = "ValidatingWebhookConfiguration";
const T0 = Date.parse("2026-11-01T00:00:00Z");
const CHANGES = 10_000;

const object = (name: string, i: number) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: KIND,
  metadata: { name, uid: `uid-${name}`, resourceVersion: String(1000 + i) },
  webhooks: [{ name: "a.example.com", timeoutSeconds: 1 + (i % 29) }],
});

const change = (name: string, i: number): ChangeDraft => ({
  time: T0 + i * 60_000,
  kind: KIND,
  name,
  uid: `uid-${name}`,
  version: String(1000 + i),
  operation: i === 0 ? "create" : "update",
  source: "audit",
  auditID: `audit-${name}-${i}`,
  actor: { user: `user-${i % 5}`, groups: ["g"], userAgent: "kubectl" },
  object: object(name, i),
});

const pgUrl = usePostgres();

let dir: string;
let store: HistoryStore;
const calls: string[] = [];

function access(over: Partial<SeedAccess> = {}): SeedAccess {
  return {
    context: "kind-a",
    mayRead: () => {
      calls.push("mayRead");
      return Promise.resolve(true);
    },
    watch: () => {
      calls.push("watch");
      return Promise.resolve();
    },
    store: () => {
      calls.push("store");
      return Promise.resolve(store);
    },
    now: () => 42,
    ...over,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-history-seed-"));
  store = new HistoryStore(new SqliteDriver(path.join(dir, "d.sqlite")), {
    maxAgeMs: 10 * 365 * 86_400_000,
    maxRows: 1_000_000,
  });
  await store.migrate();
  const drafts = Array.from({ length: CHANGES }, (_, i) => change("big", i));
  for (let i = 0; i < drafts.length; i += 1_000) await store.record(drafts.slice(i, i + 1_000));
  await store.record([change("small", 0), change("small", 1)]);
  await store.record([{ ...change("other", 0), kind: "MutatingWebhookConfiguration" }]);
});

afterAll(async () => {
  await store.driver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the timeline's first screen", () => {
  it("is the newest first screen (20) of 10,000 changes with their diffs, the objects left out", async () => {
    calls.length = 0;
    const seed = await timelineSeedWith(access(), KIND, "big");
    expect(calls).toEqual(["mayRead", "watch", "store"]);
    expect(seed?.context).toBe("kind-a");
    expect(seed?.at).toBe(42);
    const page = seed!.page;
    expect(page.total).toBe(CHANGES);
    // Not a whole page of 50: each server-rendered change weighs on the first byte.
    expect(page.entries).toHaveLength(TIMELINE_FIRST_SCREEN);
    expect(TIMELINE_FIRST_SCREEN).toBeLessThanOrEqual(20);
    expect(page.entries.map((e) => e.change.version)).toEqual(
      Array.from({ length: 20 }, (_, i) => String(1000 + CHANGES - 1 - i)),
    );
    // Each diff is against the version before it, the page's last against the change just older.
    const last = page.entries[19]!;
    expect(last.diff).toEqual([
      {
        path: "webhooks[name=a.example.com].timeoutSeconds",
        change: "changed",
        before: String(1 + ((CHANGES - 21) % 29)),
        after: String(1 + ((CHANGES - 20) % 29)),
      },
    ]);
    expect(page.entries.every((e) => e.known && JSON.stringify(e.change.object) === "{}")).toBe(
      true,
    );
    expect(page.nextBefore).toBe(last.change.id);
    // The same page as the API answers, but for the objects.
    const api = await timelineOf(KIND, "big", { limit: 50 }, store);
    expect(page.entries.map((e) => [e.change.id, e.diff])).toEqual(
      api.entries.slice(0, 20).map((e) => [e.change.id, e.diff]),
    );
    // The next page from where the seed ends is the rest, in order, with nothing left out.
    const rest = await timelineOf(KIND, "big", { limit: 50, before: page.nextBefore }, store);
    expect(rest.entries.slice(0, 30).map((e) => e.change.id)).toEqual(
      api.entries.slice(20).map((e) => e.change.id),
    );
    expect(api.entries[0]?.change.object).toEqual(object("big", CHANGES - 1));
  });

  it("is the whole history of a short one, with no next page", async () => {
    const seed = await timelineSeedWith(access(), KIND, "small");
    expect(seed?.page.total).toBe(2);
    expect(seed?.page.entries.map((e) => e.change.operation)).toEqual(["update", "create"]);
    expect(seed?.page.nextBefore).toBeUndefined();
  });

  it("is nothing when the identity may not read decisions: the watch is not started, the store not read", async () => {
    calls.length = 0;
    const seed = await timelineSeedWith(
      access({
        mayRead: () => {
          calls.push("mayRead");
          return Promise.resolve(false);
        },
      }),
      KIND,
      "big",
    );
    expect(seed).toBeUndefined();
    expect(calls).toEqual(["mayRead"]);
  });

  it("is nothing when the access check fails or does not answer within its budget", async () => {
    const failing = access({ mayRead: () => Promise.reject(new Error("unreachable")) });
    expect(await timelineSeedWith(failing, KIND, "big")).toBeUndefined();
    let aborted: AbortSignal | undefined;
    const hanging = access({
      mayRead: (signal) => {
        aborted = signal;
        return new Promise<boolean>(() => {});
      },
    });
    expect(await timelineSeedWith(hanging, KIND, "big", 5)).toBeUndefined();
    expect(aborted?.aborted).toBe(true);
  });
});

describe("the recent changes' first screen", () => {
  it("is the newest page for the URL's filter, read as the API reads it (trimmed)", async () => {
    const seed = await recentChangesSeedWith(access(), { actor: " user-1 ", name: "sma" });
    expect(seed?.filter).toEqual({ actor: " user-1 ", name: "sma" });
    expect(seed?.page.items.map((c) => [c.name, c.actor?.user])).toEqual([["small", "user-1"]]);
    expect(seed?.page.nextBefore).toBeUndefined();

    const all = await recentChangesSeedWith(access(), {});
    expect(all?.page.items).toHaveLength(100);
    expect(all?.page.items[0]?.kind).toBe("MutatingWebhookConfiguration");
    expect(all?.page.nextBefore).toBe(all?.page.items[99]?.id);

    const byKind = await recentChangesSeedWith(access(), { kind: "MutatingWebhookConfiguration" });
    expect(byKind?.page.items.map((c) => c.name)).toEqual(["other"]);
  });

  it("is nothing for a filter the API refuses, or an identity that may not read", async () => {
    expect(await recentChangesSeedWith(access(), { name: "x".repeat(254) })).toBeUndefined();
    const denied = access({ mayRead: () => Promise.resolve(false) });
    expect(await recentChangesSeedWith(denied, {})).toBeUndefined();
  });
});

describe("the store's first-page query at 10,000 changes", () => {
  it("walks the (kind, name, id) index newest first: no table scan, no sort", async () => {
    const plan = await store.driver.query<{ detail: string }>(
      sql`EXPLAIN QUERY PLAN SELECT id, time, kind, name, uid, version_key, operation, source, audit_id, user_name, user_groups, user_agent, impersonator, object, patch FROM admission_changes WHERE kind = ${KIND} AND name = ${"big"} AND id < ${Number.MAX_SAFE_INTEGER} ORDER BY id DESC LIMIT ${51}`,
    );
    const details = plan.map((p) => p.detail).join("\n");
    expect(details).toMatch(/USING INDEX admission_changes_object/);
    expect(details).not.toMatch(/TEMP B-TREE|SCAN admission_changes\b(?! USING)/);
    const count = await store.driver.query<{ detail: string }>(
      sql`EXPLAIN QUERY PLAN SELECT COUNT(*) AS n FROM admission_changes WHERE kind = ${KIND} AND name = ${"big"}`,
    );
    expect(count.map((p) => p.detail).join("\n")).toMatch(
      /USING COVERING INDEX admission_changes_object/,
    );
  });
});

describe("the store's first-page query at 10,000 changes on PostgreSQL", () => {
  it("walks an index newest first, for an object with many changes or few: no sequential scan, no sort", async () => {
    const driver = new PostgresDriver(pgUrl());
    try {
      await driver.exec("DROP TABLE IF EXISTS admission_changes");
      const pg = new HistoryStore(driver, { maxAgeMs: 1e12, maxRows: 1_000_000 });
      await pg.migrate();
      // 10,000 changes of one object among 10,000 of others, as the store writes them.
      await driver.exec(
        `INSERT INTO admission_changes (time, kind, name, uid, version_key, operation, source, audit_id, object)
         SELECT g, '${KIND}', CASE WHEN g % 2 = 0 THEN 'big' ELSE 'o' || (g % 97) END, 'u' || (g % 2), g::text, 'update', 'watch', '', '{}'
         FROM generate_series(1, ${2 * CHANGES}) AS g;
         ANALYZE admission_changes;`,
      );
      const plan = async (name: string) =>
        (
          await driver.query<{ "QUERY PLAN": string }>(
            sql`EXPLAIN SELECT id, time, kind, name, uid, version_key, operation, source, audit_id, user_name, user_groups, user_agent, impersonator, object, patch FROM admission_changes WHERE kind = ${KIND} AND name = ${name} AND id < ${Number.MAX_SAFE_INTEGER} ORDER BY id DESC LIMIT ${51}`,
          )
        )
          .map((p) => p["QUERY PLAN"])
          .join("\n");
      // Half the table: the newest ids, read backwards, are its newest changes.
      const big = await plan("big");
      expect(big).toMatch(/Index Scan Backward using admission_changes_(object|pkey)/);
      expect(big).not.toMatch(/Seq Scan|Sort/);
      // A hundred changes among 20,000: the object's own index.
      const small = await plan("o5");
      expect(small).toMatch(/Index Scan Backward using admission_changes_object/);
      expect(small).not.toMatch(/Seq Scan|Sort/);
      const timeline = await pg.timeline(KIND, "big", { limit: 50 });
      expect(timeline.changes).toHaveLength(50);
      expect(await pg.countOf(KIND, "big")).toBe(CHANGES);
    } finally {
      await driver.close();
    }
  });
});
