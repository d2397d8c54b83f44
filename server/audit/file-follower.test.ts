/**
 * The audit log follower on real files and a real SQLite store: appends, partial lines, rotation
 * by rename (as the apiserver's own rotation does it) and by copytruncate, restarts — while
 * running and across rotations made while it was down — and hostile lines. Every test counts
 * what was written against what was stored: none lost, none duplicated.
 */
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { SqliteDriver } from "@/server/decisions/sqlite";
import { DecisionStore } from "@/server/decisions/store";
import type { LogCursor } from "@/server/decisions/store/types";
import { AuditLogFollower, isRotatedName, type FollowerOptions } from "./file-follower";

let dir: string;
let log: string;
let store: DecisionStore;
let followers: AuditLogFollower[] = [];
let serial = 0;

function eventLine(id: string, extra = ""): string {
  const t = new Date(Date.parse("2026-11-23T10:00:00Z") + serial++).toISOString();
  return `${JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: id,
    stage: "ResponseComplete",
    verb: "create",
    requestURI: "/api/v1/namespaces/a/configmaps",
    user: { username: "alice", groups: ["g"] },
    objectRef: { resource: "configmaps", namespace: "a", name: id, apiVersion: "v1" },
    responseStatus: { code: 201 },
    stageTimestamp: t,
    requestReceivedTimestamp: t,
    annotations: {
      "mutation.webhook.admission.k8s.io/round_0_index_0": JSON.stringify({
        configuration: "cfg",
        webhook: "m.example.com",
        mutated: false,
      }),
      note: extra,
    },
  })}\n`;
}

function lines(prefix: string, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += eventLine(`${prefix}-${i}`);
  return s;
}

function follow(opts: Partial<FollowerOptions> = {}): AuditLogFollower {
  const f = new AuditLogFollower({
    file: log,
    pollMs: 10,
    sink: {
      cursor: (name) => store.cursor(name),
      store: async (events: ParsedAuditEvent[], cursor: LogCursor) => {
        await store.ingest(events, cursor);
      },
    },
    ...opts,
  });
  followers.push(f);
  f.start();
  return f;
}

/** Every stored event: auditID → how many times it is stored. */
async function stored(): Promise<Map<string, number>> {
  const rows = await store.driver.query<{ audit_id: string }>({
    text: "SELECT audit_id FROM admission_calls",
    params: [],
  });
  const m = new Map<string, number>();
  for (const r of rows) m.set(r.audit_id, (m.get(r.audit_id) ?? 0) + 1);
  return m;
}

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Waits until exactly the given auditIDs are stored, each once. */
async function expectStoredOnce(ids: string[]): Promise<void> {
  await until(`${ids.length} events stored`, async () => (await stored()).size >= ids.length);
  // Give a duplicate the chance to show up before counting.
  await new Promise((r) => setTimeout(r, 100));
  const got = await stored();
  expect([...got.keys()].sort()).toEqual([...ids].sort());
  expect([...got.values()].every((n) => n === 1)).toBe(true);
}

/**
 * A follower reads "one" (8 lines) and stops; then "two" (3) is written, the log is rotated and
 * "three" (4) goes to the new live log.
 */
async function stopThenRotate(): Promise<void> {
  appendFileSync(log, lines("one", 8));
  const first = follow();
  await until("first lines", () => first.stats.lines === 8);
  await first.stop();
  appendFileSync(log, lines("two", 3));
  renameSync(log, path.join(dir, "audit-2026-11-23T10-00-01.000.log"));
  appendFileSync(log, lines("three", 4));
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-follow-"));
  log = path.join(dir, "audit.log");
  store = new DecisionStore(new SqliteDriver(path.join(dir, "db", "decisions.sqlite")), {
    maxAgeMs: 365 * 86_400_000,
    maxRows: 1_000_000,
  });
  await store.migrate();
  serial = 0;
});

afterEach(async () => {
  for (const f of followers) await f.stop();
  followers = [];
  await store.driver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("AuditLogFollower", () => {
  it("reads a log that appears later, follows appends and waits for a partial line's end", async () => {
    const f = follow();
    await new Promise((r) => setTimeout(r, 50));
    appendFileSync(log, lines("a", 5));
    const next = eventLine("a-5");
    appendFileSync(log, next.slice(0, 40));
    await until("5 lines", () => f.stats.lines === 5);
    // The cursor stops at the last complete line, not at the partial one.
    expect(f.stats.offset).toBe(statSync(log).size - 40);
    expect((await store.cursor(log))?.offset).toBe(statSync(log).size - 40);
    appendFileSync(log, next.slice(40));
    appendFileSync(log, lines("b", 3));
    await expectStoredOnce([...ids("a", 6), ...ids("b", 3)]);
    expect((await store.cursor(log))?.offset).toBe(statSync(log).size);
  });

  it("tells a waiter once it has read a file to an offset, everything before it stored", async () => {
    appendFileSync(log, lines("w", 5));
    const f = follow();
    const at = statSync(log, { bigint: true });
    const stats = await f.until(
      (s) => s.readingId?.ino === String(at.ino) && s.offset >= Number(at.size),
    );
    expect(stats).toMatchObject({ reading: log, offset: Number(at.size), events: 5 });
    expect(stats?.steps).toBeGreaterThan(0);
    expect((await stored()).size).toBe(5);
    // A waiter whose state never comes is let go when its signal aborts.
    const giveUp = new AbortController();
    const never = f.until((s) => s.offset > Number(at.size), giveUp.signal);
    giveUp.abort();
    await expect(never).resolves.toBeUndefined();
  });

  it("follows a rename rotation, finishing the old file before the new one", async () => {
    appendFileSync(log, lines("old", 10));
    const f = follow();
    await until("first lines", () => f.stats.lines === 10);
    // Written just before the rename (the follower may not have seen them yet), then rotated.
    appendFileSync(log, lines("late", 4));
    renameSync(log, path.join(dir, "audit-2026-11-23T10-00-00.000.log"));
    appendFileSync(log, lines("new", 7));
    await expectStoredOnce([...ids("old", 10), ...ids("late", 4), ...ids("new", 7)]);
    expect(f.stats.rotations).toBe(1);
  });

  it("reads only rotated copies of the log, not other files beside it that start alike", async () => {
    await stopThenRotate();
    // Newer than the rotated copy, as the files an admin keeps beside the log often are.
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(path.join(dir, "audit-copy.log"), lines("decoy", 3));
    writeFileSync(
      path.join(dir, "audit-policy.yaml"),
      "apiVersion: audit.k8s.io/v1\nkind: Policy\n",
    );
    writeFileSync(path.join(dir, "audit.token"), "0123456789abcdef\n");
    const second = follow();
    await expectStoredOnce([...ids("one", 8), ...ids("two", 3), ...ids("three", 4)]);
    expect(second.stats.skipped).toEqual({ notJson: 0, oversized: 0, partial: 0 });
    expect(second.stats.lastError).toBeUndefined();
  });

  it("follows a copytruncate, reading past the zeros a non-appending writer leaves", async () => {
    // The writer keeps its own offset (the apiserver opens a new log without O_APPEND).
    const fd = openSync(log, "w");
    let at = 0;
    const write = (s: string) => {
      at += writeSync(fd, Buffer.from(s), 0, Buffer.byteLength(s), at);
    };
    try {
      write(lines("before", 6));
      const f = follow();
      await until("first lines", () => f.stats.lines === 6);
      copyFileSync(log, path.join(dir, "audit.log.1"));
      ftruncateSync(fd, 0);
      await until("truncation seen", () => f.stats.truncations === 1);
      write(lines("after", 5));
      await expectStoredOnce([...ids("before", 6), ...ids("after", 5)]);
    } finally {
      closeSync(fd);
    }
  });

  it("resumes where it stopped after a restart, also when the log rotated twice meanwhile", async () => {
    await stopThenRotate();
    await new Promise((r) => setTimeout(r, 20)); // distinct modification times
    renameSync(log, path.join(dir, "audit-2026-11-23T10-00-02.000.log"));
    appendFileSync(log, lines("four", 5));
    const second = follow();
    await expectStoredOnce([
      ...ids("one", 8),
      ...ids("two", 3),
      ...ids("three", 4),
      ...ids("four", 5),
    ]);
    // It resumed at the stored offset: the first file's lines were not read again.
    expect(second.stats.lines).toBe(3 + 4 + 5);
  });

  it("reads every file the log rotates into while it is still catching up, after a restart and while running", async () => {
    /** A sink whose first store waits until released: the log rotates meanwhile. */
    const heldSink = () => {
      const h = { calls: 0, release: () => {} };
      const held = new Promise<void>((r) => (h.release = r));
      const opts: Partial<FollowerOptions> = {
        sink: {
          cursor: (name) => store.cursor(name),
          store: async (events: ParsedAuditEvent[], cursor: LogCursor) => {
            if (h.calls++ === 0) await held;
            await store.ingest(events, cursor);
          },
        },
      };
      return { h, opts };
    };
    /** Two rotations, each followed by new lines in the new live log. */
    const rotateTwice = async (at: number, a: [string, number], b: [string, number]) => {
      for (const [k, [prefix, n]] of [a, b].entries()) {
        await new Promise((r) => setTimeout(r, 20)); // distinct modification times
        renameSync(log, path.join(dir, `audit-2026-11-23T10-00-0${at + k}.000.log`));
        appendFileSync(log, lines(prefix, n));
      }
    };
    await stopThenRotate();
    const restarted = heldSink();
    const second = follow(restarted.opts);
    await until("the restarted follower to read", () => restarted.h.calls === 1);
    // While it is still in the file it stopped in, the log rotates twice more.
    await rotateTwice(2, ["four", 5], ["five", 2]);
    restarted.h.release();
    const before = [
      ...ids("one", 8),
      ...ids("two", 3),
      ...ids("three", 4),
      ...ids("four", 5),
      ...ids("five", 2),
    ];
    await expectStoredOnce(before);
    await second.stop();

    // Running in the live log: it rotates twice before the follower looks again.
    const running = heldSink();
    const third = follow(running.opts);
    appendFileSync(log, lines("six", 3));
    await until("the running follower to read", () => running.h.calls === 1);
    await rotateTwice(4, ["seven", 4], ["eight", 2]);
    running.h.release();
    await expectStoredOnce([...before, ...ids("six", 3), ...ids("seven", 4), ...ids("eight", 2)]);
    expect(third.stats.rotations).toBeGreaterThanOrEqual(1);
  });

  it("starts over from the live log when the file it stopped in is gone", async () => {
    appendFileSync(log, lines("gone", 4));
    const first = follow();
    await until("first lines", () => first.stats.lines === 4);
    await first.stop();
    rmSync(log);
    appendFileSync(log, lines("fresh", 3));
    follow();
    await expectStoredOnce([...ids("gone", 4), ...ids("fresh", 3)]);
  });

  it("skips hostile lines with a counted error and keeps going", async () => {
    const errors: string[] = [];
    const f = follow({ maxLineBytes: 4096, onError: (m) => errors.push(m) });
    appendFileSync(
      log,
      [
        lines("h", 2),
        "not json at all\n",
        `{"kind":"Event","auditID":"${"x".repeat(10_000)}"}\n`,
        '{"kind":"Event"}\n',
        "[1,2,3]\n",
        lines("k", 2),
      ].join(""),
    );
    await expectStoredOnce([...ids("h", 2), ...ids("k", 2)]);
    expect(f.stats.skipped).toEqual({ notJson: 1, oversized: 1, partial: 0 });
    expect(errors.some((m) => m.includes("not JSON"))).toBe(true);
    expect(errors.some((m) => m.includes("longer than 4096 bytes"))).toBe(true);
    expect(errors.some((m) => m.includes("--audit-log-format=json"))).toBe(false);
  });

  it("says so when the log is in the legacy text format", async () => {
    const errors: string[] = [];
    const f = follow({ onError: (m) => errors.push(m) });
    appendFileSync(
      log,
      [
        '2026-11-26T04:57:09.106841886Z AUDIT: id="c939d2a7-1c37-4ef1-b2f7-4ba9b1e43b53" stage="ResponseComplete" ip="127.0.0.1" method="create" user="admin" groups="\\"system:masters\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl" namespace="default" uri="/api/v1/namespaces/default/pods" response="201"\n',
        lines("j", 1),
      ].join(""),
    );
    await expectStoredOnce(ids("j", 1));
    expect(f.stats.skipped.notJson).toBe(1);
    expect(errors.join("\n")).toMatch(/not JSON.*legacy text format.*--audit-log-format=json/);
  });

  it("retries from the stored cursor when storing fails: nothing lost, nothing twice", async () => {
    let failures = 2;
    const f = follow({
      sink: {
        cursor: (name) => store.cursor(name),
        store: async (events, cursor) => {
          if (events.length > 0 && failures-- > 0) throw new Error("disk full");
          await store.ingest(events, cursor);
        },
      },
    });
    appendFileSync(log, lines("r", 5));
    await expectStoredOnce(ids("r", 5));
    expect(f.stats.storeFailures).toBe(2);
    expect(f.stats.lastError).toContain("disk full");
  });
});

describe("isRotatedName", () => {
  it("knows the apiserver's and logrotate's rotated copies", () => {
    for (const entry of [
      "audit-2026-11-23T10-00-00.000.log",
      "audit.log.1",
      "audit.log.12",
      "audit.log-20261123",
      "audit.log-2026112310",
      "audit-20261123.log",
    ])
      expect(isRotatedName("audit.log", entry), entry).toBe(true);
    expect(isRotatedName("audit", "audit-2026-11-23T10-00-00.000")).toBe(true);
    expect(isRotatedName("audit", "audit.1")).toBe(true);
  });

  it("leaves the log itself, compressed copies and files that only start alike", () => {
    for (const entry of [
      "audit.log",
      "audit.log.1.gz",
      "audit-2026-11-23T10-00-00.000.log.gz",
      "audit.log.zst",
      "audit-policy.yaml",
      "audit-copy.log",
      "audit.token",
      "audit-sink.key",
      "audit.log.swp",
      "audit.log.bak",
      "audit.log-old",
      "auditing.log",
      "audit.log.",
    ])
      expect(isRotatedName("audit.log", entry), entry).toBe(false);
  });
});
