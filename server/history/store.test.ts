/**
 * The change history's table on a real SQLite file and a real PostgreSQL server (the same
 * statements): the audit and watch records of one write kept once whichever comes first, a
 * Request-level audit record claiming the watch's, paging a timeline, the cluster-wide filters
 * and retention.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChangeDraft } from "@/lib/admission/history/changes";
import { PostgresDriver } from "@/server/decisions/postgres";
import type { SqlDriver } from "@/server/decisions/sql";
import { SqliteDriver } from "@/server/decisions/sqlite";
import { usePostgres } from "@/server/decisions/store/test-support";
import { HistoryStore } from "./store";

const T0 = Date.parse("2026-11-29T10:00:00Z");
const pgUrl = usePostgres();

const obj = (rv: string, timeoutSeconds: number) => ({
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "c", uid: "u1", resourceVersion: rv },
  webhooks: [{ name: "a.example.com", timeoutSeconds }],
});

const watch = (rv: string, t: number, timeout = 1): ChangeDraft => ({
  time: t,
  kind: "ValidatingWebhookConfiguration",
  name: "c",
  uid: "u1",
  version: rv,
  operation: "update",
  source: "watch",
  auditID: "",
  object: obj(rv, timeout),
});
const audit = (
  rv: string,
  t: number,
  user: string,
  over: Partial<ChangeDraft> = {},
): ChangeDraft => ({
  ...watch(rv, t),
  source: "audit",
  auditID: `audit-${rv}-${user}`,
  actor: {
    user,
    groups: ["g"],
    userAgent: "kubectl",
    ...(user === "alice" ? { impersonator: "admin" } : {}),
  },
  ...over,
});

describe.each([
  {
    name: "SQLite",
    open: () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-history-"));
      return {
        driver: new SqliteDriver(path.join(dir, "d.sqlite")) as SqlDriver,
        done: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL",
    open: () => ({ driver: new PostgresDriver(pgUrl()) as SqlDriver, done: () => undefined }),
  },
])("change history on $name", ({ open }) => {
  let store: HistoryStore;
  let done: () => void;
  beforeEach(async () => {
    const o = open();
    done = o.done;
    await o.driver.exec("DROP TABLE IF EXISTS admission_changes");
    store = new HistoryStore(o.driver, { maxAgeMs: 7 * 86_400_000, maxRows: 1_000_000 });
    await store.migrate();
    await store.migrate(); // a second open finds its own table
  });
  afterEach(async () => {
    await store.driver.close();
    done();
  });

  it("keeps one record of a write seen by the watch and the audit sink, whichever came first, with the actor", async () => {
    await store.record([watch("5", T0 + 100)]);
    await store.record([audit("5", T0, "bob")]);
    await store.record([audit("6", T0 + 1000, "alice")]);
    await store.record([watch("6", T0 + 1100)]);
    await store.record([audit("6", T0 + 1000, "alice")]); // a retried batch
    const { changes } = await store.timeline("ValidatingWebhookConfiguration", "c", { limit: 10 });
    expect(
      changes.map((c) => [c.version, c.source, c.time - T0, c.actor?.user, c.actor?.impersonator]),
    ).toEqual([
      ["6", "audit", 1000, "alice", "admin"],
      ["5", "audit", 0, "bob", undefined],
    ]);
    expect(changes[0]?.object).toEqual(obj("6", 1));
  });

  it("lets a Request-level audit record (no resourceVersion) claim the watch's record of the write, and the reverse", async () => {
    await store.record([watch("7", T0)]);
    await store.record([
      audit("", T0 + 500, "bob", { operation: "patch", object: undefined, patch: "{}" }),
    ]);
    await store.record([
      audit("", T0 + 10 * 60_000, "carol", { operation: "patch", object: undefined, patch: "{}" }),
    ]);
    await store.record([watch("8", T0 + 10 * 60_000 + 200, 9)]);
    const { changes } = await store.timeline("ValidatingWebhookConfiguration", "c", { limit: 10 });
    expect(
      changes.map((c) => [c.version, c.operation, c.actor?.user, c.object !== undefined]),
    ).toEqual([
      ["8", "patch", "carol", true],
      ["7", "patch", "bob", true],
    ]);
  });

  it("pages a timeline newest first with the change just older than the page", async () => {
    for (let i = 1; i <= 5; i++) await store.record([audit(String(i), T0 + i, "bob")]);
    const first = await store.timeline("ValidatingWebhookConfiguration", "c", { limit: 2 });
    expect(first.changes.map((c) => c.version)).toEqual(["5", "4"]);
    expect(first.older?.version).toBe("3");
    const next = await store.timeline("ValidatingWebhookConfiguration", "c", {
      limit: 2,
      before: first.changes[1]!.id,
    });
    expect(next.changes.map((c) => c.version)).toEqual(["3", "2"]);
    expect(await store.countOf("ValidatingWebhookConfiguration", "c")).toBe(5);
    expect((await store.version(first.changes[0]!.id))?.object).toEqual(obj("5", 1));
  });

  it("filters the cluster's recent changes by actor, kind and name; observed versions only when asked", async () => {
    await store.record([
      { ...watch("1", T0), operation: "observed" },
      audit("2", T0 + 1, "bob"),
      audit("3", T0 + 2, "alice"),
    ]);
    await store.record([
      { ...audit("9", T0 + 3, "bob"), kind: "ValidatingAdmissionPolicy", name: "p_%", uid: "u2" },
      watch("4", T0 + 4),
    ]);
    const names = async (f: Parameters<HistoryStore["recent"]>[0]) =>
      (await store.recent(f, { limit: 10 })).map((c) => `${c.name}@${c.version}`);
    expect(await names({})).toEqual(["c@4", "p_%@9", "c@3", "c@2"]);
    expect(await names({ observed: true })).toEqual(["c@4", "p_%@9", "c@3", "c@2", "c@1"]);
    expect(await names({ actor: "bob" })).toEqual(["p_%@9", "c@2"]);
    expect(await names({ actor: "admin" })).toEqual(["c@3"]);
    expect(await names({ actor: "unknown" })).toEqual(["c@4"]);
    expect(await names({ kind: "ValidatingAdmissionPolicy" })).toEqual(["p_%@9"]);
    expect(await names({ name: "_%" })).toEqual(["p_%@9"]);
    const marks = await store.changesOf(
      [{ kind: "ValidatingWebhookConfiguration", name: "c" }],
      T0,
      T0 + 3,
    );
    expect(marks.map((c) => c.version)).toEqual(["2", "3"]);
  });

  it("records the context each change was seen through, the watch's kept when the audit record completes it, and filters by it", async () => {
    await store.record([{ ...watch("5", T0), context: "admin@local" }]);
    await store.record([{ ...audit("5", T0 + 1, "bob"), context: "" }]);
    await store.record([{ ...audit("6", T0 + 2, "bob"), context: "audited@local" }]);
    // The same write seen through a second context of the same cluster: kept once.
    await store.record([{ ...watch("6", T0 + 3), context: "viewer@local" }]);
    await store.record([{ ...audit("7", T0 + 4, "carol"), context: "" }]);
    // An audit record of no known context, then the watch's of the same write: the watch's.
    await store.record([{ ...audit("8", T0 + 5, "carol"), context: "" }]);
    await store.record([{ ...watch("8", T0 + 6), context: "admin@local" }]);
    const ctx = async (f: Parameters<HistoryStore["recent"]>[0]) =>
      (await store.recent(f, { limit: 10 })).map((c) => `${c.version}@${c.context}`);
    expect(await ctx({})).toEqual(["8@admin@local", "7@", "6@audited@local", "5@admin@local"]);
    expect(await ctx({ context: "admin@local" })).toEqual(["8@admin@local", "5@admin@local"]);
    expect(await ctx({ context: "" })).toEqual(["7@"]);
    const { changes } = await store.timeline("ValidatingWebhookConfiguration", "c", { limit: 10 });
    expect(changes.map((c) => [c.context, c.actor?.user])).toEqual([
      ["admin@local", "carol"],
      ["", "carol"],
      ["audited@local", "bob"],
      ["admin@local", "bob"],
    ]);
  });

  it("does not let a Request-level audit record of one context claim another context's watch record", async () => {
    await store.record([{ ...watch("7", T0), context: "other@remote" }]);
    await store.record([
      {
        ...audit("", T0 + 500, "bob", { operation: "patch", object: undefined, patch: "{}" }),
        context: "audited@local",
      },
    ]);
    const { changes } = await store.timeline("ValidatingWebhookConfiguration", "c", { limit: 10 });
    expect(changes.map((c) => [c.source, c.context])).toEqual([
      ["audit", "audited@local"],
      ["watch", "other@remote"],
    ]);
  });

  it("keeps static manifest changes apart by their own keys and reads each one's last change", async () => {
    const m = (uid: string, version: string, file: string): ChangeDraft => ({
      ...watch("1", T0),
      name: uid.slice("manifest:ValidatingWebhookConfiguration/".length),
      uid,
      version,
      source: "manifest",
      actor: { user: `manifest ${file}`, groups: [], userAgent: "" },
    });
    const a = "manifest:ValidatingWebhookConfiguration/a.static.k8s.io";
    const b = "manifest:ValidatingWebhookConfiguration/b.static.k8s.io";
    expect(
      await store.record([m(a, "sha256:e3b0:0", "/m/a.yaml"), m(b, "sha256:e3b0:0", "/m/b.yaml")]),
    ).toBe(2);
    // A second dashboard recording the same change: kept once.
    expect(await store.record([m(a, "sha256:e3b0:0", "/m/a.yaml")])).toBe(0);
    const heads = await store.manifestHeads();
    expect([...heads.values()].map((h) => [h.uid, h.versionKey, h.file]).sort()).toEqual([
      [a, "sha256:e3b0:0", "/m/a.yaml"],
      [b, "sha256:e3b0:0", "/m/b.yaml"],
    ]);
    const idA = heads.get(a)!.id;
    await store.record([
      { ...m(a, `delete:${idA}`, "/m/a.yaml"), operation: "delete", object: undefined },
    ]);
    expect((await store.manifestHeads()).get(a)?.versionKey).toBe(`delete:${idA}`);
    // The watch's and audit's records are no static object's.
    await store.record([watch("9", T0)]);
    expect((await store.manifestHeads()).size).toBe(2);
  });

  it("upgrades the previous version's table (without the context column), its changes' context unknown", async () => {
    await store.record([audit("5", T0, "bob")]);
    await store.driver.exec("ALTER TABLE admission_changes DROP COLUMN context");
    const again = new HistoryStore(store.driver, store.retention);
    await again.migrate();
    await again.record([{ ...audit("6", T0 + 1, "bob"), context: "admin@local" }]);
    const { changes } = await again.timeline("ValidatingWebhookConfiguration", "c", { limit: 10 });
    expect(changes.map((c) => [c.version, c.context])).toEqual([
      ["6", "admin@local"],
      ["5", ""],
    ]);
    // A table of another shape is still refused.
    await store.driver.exec("ALTER TABLE admission_changes DROP COLUMN patch");
    await expect(new HistoryStore(store.driver, store.retention).migrate()).rejects.toThrow(
      /not this version's/,
    );
  });

  it("applies the decisions' retention: by age, then by rows", async () => {
    const now = T0 + 100 * 3_600_000;
    for (let i = 1; i <= 6; i++)
      await store.record([audit(String(i), i <= 2 ? T0 : now - i, "bob")]);
    const small = new HistoryStore(store.driver, { maxAgeMs: 3_600_000, maxRows: 3 });
    expect(await small.prune(now)).toBe(3);
    const { changes } = await store.timeline("ValidatingWebhookConfiguration", "c", { limit: 10 });
    expect(changes.map((c) => c.version)).toEqual(["6", "5", "4"]);
  });
});
