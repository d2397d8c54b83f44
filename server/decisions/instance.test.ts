/**
 * The process-wide decision store: retention also runs when no batch arrives (a real SQLite file
 * in a data directory, opened as the dashboard opens it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { parsedEvent } from "../../test/parsed-event";
import { decisionStore } from "./instance";
import { SqliteDriver } from "./sqlite";
import { DecisionStore } from "./store";

function event(auditID: string, time: number): ParsedAuditEvent {
  return parsedEvent(auditID, time, {
    responseStatus: { code: 201 },
    annotations: {
      "mutation.webhook.admission.k8s.io/round_0_index_0": JSON.stringify({
        configuration: "cfg",
        webhook: "m.example.com",
        mutated: true,
      }),
    },
  });
}

const ENV = ["PORTCULLIS_DATA_DIR", "PORTCULLIS_DECISIONS_MAX_AGE_HOURS", "DATABASE_URL"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
let dir: string | undefined;

afterEach(async () => {
  const g = globalThis as { portcullisDecisionState?: { store?: Promise<DecisionStore> } };
  const open = await g.portcullisDecisionState?.store?.catch(() => undefined);
  await open?.driver.close();
  delete g.portcullisDecisionState;
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("decisionStore", () => {
  it("applies the age limit when it opens a store, with no batch arriving", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-instance-"));
    // Stored by an earlier run of the dashboard: one decision two hours old, one fresh.
    const earlier = new DecisionStore(new SqliteDriver(path.join(dir, "decisions.sqlite")), {
      maxAgeMs: 365 * 86_400_000,
      maxRows: 1_000_000,
    });
    await earlier.migrate();
    await earlier.ingest([event("old", Date.now() - 2 * 3_600_000), event("new", Date.now())]);
    await earlier.driver.close();

    process.env.PORTCULLIS_DATA_DIR = dir;
    process.env.PORTCULLIS_DECISIONS_MAX_AGE_HOURS = "1";
    delete process.env.DATABASE_URL;
    const store = await decisionStore();
    await vi.waitFor(
      async () => expect(await store.hasEvent("old", "ResponseComplete")).toBe(false),
      { timeout: 5_000, interval: 50 },
    );
    expect(await store.hasEvent("new", "ResponseComplete")).toBe(true);
    expect(await store.counts()).toEqual({ events: 1, decisions: 1 });
  });
});
