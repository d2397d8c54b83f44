/**
 * What the decision store's tests share: audit events to store, and a fresh store on a real
 * SQLite file and on a real PostgreSQL server (started for the test file from Debian's package),
 * running the same query layer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe } from "vitest";
import { parseAuditEvent, type ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { parseDecisionFilter } from "@/lib/decisions/filter";
import { startPostgres, type TestPostgres } from "../../../test/postgres";
import { PostgresDriver } from "../postgres";
import type { SqlDriver } from "../sql";
import { SqliteDriver } from "../sqlite";
import { DecisionStore } from "./index";

export const T0 = Date.parse("2026-11-23T10:00:00Z");

/** A parsed audit event of a ConfigMap's creation, mutated by one webhook (and denied by another). */
export function parsed(
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
export const list = (items: unknown[]) => ({
  kind: "EventList",
  apiVersion: "audit.k8s.io/v1",
  items,
});

export const all = parseDecisionFilter(new URLSearchParams());
export const filter = (q: string) => parseDecisionFilter(new URLSearchParams(q));

/** Starts a PostgreSQL server for the test file; returns its URL (once started). */
export function usePostgres(): () => string {
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });
  return () => pg?.url ?? "";
}

/** Drops every table the store has (and had) from the PostgreSQL database at `url`. */
export async function resetPostgres(url: string): Promise<void> {
  const d = new PostgresDriver(url);
  await d.exec(
    "DROP TABLE IF EXISTS admission_calls; DROP TABLE IF EXISTS admission_names; DROP TABLE IF EXISTS admission_decisions; DROP TABLE IF EXISTS admission_events; DROP TABLE IF EXISTS admission_hook_spans; DROP TABLE IF EXISTS decisions; DROP TABLE IF EXISTS decision_events; DROP TABLE IF EXISTS audit_log_cursor; DROP TABLE IF EXISTS break_glass_episodes;",
  );
  await d.close();
}

interface Backend {
  name: string;
  /** A driver on the same database every time (so reopening sees what was stored). */
  driver(): SqlDriver;
  /** Prepares an empty database. */
  reset(): Promise<void>;
  /** Removes what reset() made. */
  cleanup(): void;
}

function backends(pgUrl: () => string): Backend[] {
  let dir: string | undefined;
  let file = "";
  return [
    {
      name: "SQLite",
      driver: () => new SqliteDriver(file),
      reset: async () => {
        if (dir) rmSync(dir, { recursive: true, force: true });
        dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-store-"));
        file = path.join(dir, "nested", "decisions.sqlite");
      },
      cleanup: () => {
        if (dir) rmSync(dir, { recursive: true, force: true });
        dir = undefined;
      },
    },
    {
      name: "PostgreSQL",
      driver: () => new PostgresDriver(pgUrl()),
      reset: () => resetPostgres(pgUrl()),
      cleanup: () => undefined,
    },
  ];
}

export interface StoreContext {
  readonly backend: Backend;
  /** The test's store, open with its tables created; closed after the test. */
  store: DecisionStore;
  /** Another store on the same database (assign it to `store` to have it closed). */
  open(maxRows?: number, maxAgeMs?: number): DecisionStore;
}

/**
 * Declares `body`'s tests once per database (SQLite, PostgreSQL), each on a fresh store that
 * keeps a million decisions for a week unless the test opens another.
 */
export function describeStores(title: string, body: (ctx: StoreContext) => void): void {
  const pgUrl = usePostgres();
  describe.each(backends(pgUrl))(`${title} on $name`, (backend) => {
    const ctx: StoreContext = {
      backend,
      store: undefined as unknown as DecisionStore,
      open: (maxRows = 1_000_000, maxAgeMs = 7 * 86_400_000) =>
        new DecisionStore(backend.driver(), { maxAgeMs, maxRows }),
    };
    beforeEach(async () => {
      await backend.reset();
      ctx.store = ctx.open();
      await ctx.store.migrate();
    });
    afterEach(async () => {
      await ctx.store.driver.close().catch(() => undefined);
      backend.cleanup();
    });
    body(ctx);
  });
}

/**
 * Runs `fn` on a store over a fresh SQLite file (decisions kept 7 days, at most `maxRows`), then
 * closes it and removes its folder.
 */
export async function onSqlite(
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
