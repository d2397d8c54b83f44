/**
 * The overview's tally on a real SQLite store: windows aligned, one count shared by the requests
 * for the same window for a few seconds, a failed count never reused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { parsedEvent } from "../../test/parsed-event";
import { TALLY_WINDOW_MS } from "@/lib/decisions/tally";
import { SqliteDriver } from "./sqlite";
import { DecisionStore } from "./store";
import { sharedTally, TALLY_SHARED_MS } from "./tally";

const NOW = Date.parse("2026-11-23T10:00:02.500Z");

function timedOut(auditID: string, t: number): ParsedAuditEvent {
  return parsedEvent(auditID, t, {
    responseStatus: {
      code: 500,
      message:
        'Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://x/": context deadline exceeded',
    },
  });
}

const none = { outcome: [] };
let dir = "";
let store: DecisionStore;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-tally-"));
  store = new DecisionStore(new SqliteDriver(path.join(dir, "d.sqlite")), {
    maxAgeMs: 86_400_000,
    maxRows: 1_000_000,
  });
  await store.migrate();
});

afterEach(async () => {
  vi.restoreAllMocks();
  await store.driver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("sharedTally", () => {
  it("counts the last 15 minutes, edges aligned, and shares one count for a few seconds", async () => {
    await store.ingest([timedOut("old", NOW - TALLY_WINDOW_MS - 10_000), timedOut("e1", NOW - 1)]);
    const counted = vi.spyOn(store, "tally");
    const first = await sharedTally(store, none, NOW);
    expect(first.to).toBe(NOW + 2_500);
    expect(first.from).toBe(first.to - TALLY_WINDOW_MS);
    expect(first.tallies).toEqual([
      { kind: "webhook", hook: "slow.example.com", outcome: "timeout", count: 1, last: NOW - 1 },
    ]);
    expect(first.truncated).toBe(false);
    // Another tab a moment later: the same window, the same count, not counted again…
    await store.ingest([timedOut("e2", NOW + 1_000)]);
    expect(await sharedTally(store, none, NOW + 1_500)).toEqual(first);
    expect(counted).toHaveBeenCalledTimes(1);
    // …until the window moves on…
    const later = await sharedTally(store, none, NOW + TALLY_SHARED_MS);
    expect(later.tallies[0]?.count).toBe(2);
    expect(counted).toHaveBeenCalledTimes(2);
    // …or, for a fixed window, until the count is older than the sharing interval.
    const fixed = { outcome: [], from: NOW - 60_000, to: NOW + 60_000 };
    expect((await sharedTally(store, fixed, NOW)).tallies[0]?.count).toBe(2);
    await store.ingest([timedOut("e3", NOW + 2_000)]);
    expect((await sharedTally(store, fixed, NOW + TALLY_SHARED_MS - 1)).tallies[0]?.count).toBe(2);
    expect((await sharedTally(store, fixed, NOW + TALLY_SHARED_MS)).tallies[0]?.count).toBe(3);
    expect(counted).toHaveBeenCalledTimes(4);
    // Another filter is another count.
    expect((await sharedTally(store, { outcome: [], namespace: "b" }, NOW)).tallies).toEqual([]);
    expect(counted).toHaveBeenCalledTimes(5);
  });

  it("does not reuse a count that failed", async () => {
    vi.spyOn(store, "tally").mockRejectedValueOnce(new Error("database is locked"));
    await expect(sharedTally(store, none, NOW)).rejects.toThrow("database is locked");
    expect((await sharedTally(store, none, NOW)).tallies).toEqual([]);
  });
});
