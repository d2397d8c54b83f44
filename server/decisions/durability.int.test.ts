/**
 * The audit sink's promise, tested on a dashboard of its own (`next start`, its own data dir):
 * - kill -9 while batches stream, restart, let the sender retry what was not acknowledged (as the
 *   apiserver does): every event sent is stored exactly once — none lost, none duplicated;
 * - storage made unwritable (its filesystem full): 503 and nothing of the batch stored; space
 *   back: the retried batch is stored, once.
 * Counts are read back through the feed's own API (the chart's buckets sum to the decisions).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, unlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardEnv, readStack, type StackInfo } from "../../cluster/harness/stack";
import { policyHeaders } from "../../test/api-headers";
import { startDashboard, type DashboardProcess } from "../../test/dashboard-process";
import { auditBatches, eventsIn } from "../../test/audit-batches";

let stack: StackInfo;
const started = Date.now();

beforeAll(() => {
  stack = readStack();
});

async function post(base: string, body: string): Promise<number> {
  try {
    const res = await fetch(`${base}api/audit`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${stack.auditToken}` },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0; // connection refused or reset: the dashboard is down
  }
}

/** How many decisions by `user` are stored, read through /api/decisions as admin. */
async function storedBy(base: string, user: string): Promise<number> {
  const res = await fetch(
    `${base}api/decisions?user=${encodeURIComponent(user)}&from=${started - 60_000}&limit=1`,
    { headers: policyHeaders(stack.contexts.admin) },
  );
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    histogram: { buckets: Array<{ counts: Record<string, number> }> };
  };
  return body.histogram.buckets.reduce(
    (n, b) => n + Object.values(b.counts).reduce((a, c) => a + c, 0),
    0,
  );
}

describe("kill -9 while batches stream", () => {
  let dir: string;
  let dashboard: DashboardProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-crash-"));
  });
  afterAll(async () => {
    await dashboard?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("loses and duplicates nothing once unacknowledged batches are retried", async () => {
    const env = { ...dashboardEnv(stack), PORTCULLIS_DATA_DIR: dir };
    const user = `crash-${Date.now()}`;
    const batches = auditBatches(user, user, 300, 40);
    const total = batches.reduce((n, b) => n + eventsIn(b), 0);
    dashboard = await startDashboard(env);
    const first = dashboard;

    // Four senders in parallel (several apiservers); the process is killed under them.
    const acked = new Set<number>();
    let next = 0;
    const sender = async () => {
      for (let i = next++; i < batches.length; i = next++) {
        if ((await post(first.url, batches[i] ?? "")) === 200) acked.add(i);
      }
    };
    const senders = Promise.all([sender(), sender(), sender(), sender()]);
    while (acked.size < 60) await new Promise((r) => setTimeout(r, 20));
    await first.kill("SIGKILL");
    await senders;
    expect(acked.size).toBeGreaterThanOrEqual(60);
    expect(acked.size).toBeLessThan(batches.length);

    dashboard = await startDashboard(env);
    const second = dashboard;
    // Everything acknowledged before the crash survived it.
    const afterCrash = await storedBy(second.url, user);
    const ackedEvents = [...acked].reduce((n, i) => n + eventsIn(batches[i] ?? ""), 0);
    expect(afterCrash).toBeGreaterThanOrEqual(ackedEvents);
    // The sender retries every batch it has no 200 for, and (harder) re-sends acknowledged ones too.
    for (let i = 0; i < batches.length; i++) {
      expect(await post(second.url, batches[i] ?? "")).toBe(200);
    }
    expect(await storedBy(second.url, user)).toBe(total);
  });
});

describe("storage that cannot be written", () => {
  let mount: string;
  let dashboard: DashboardProcess | undefined;

  beforeAll(() => {
    mount = mkdtempSync(path.join(os.tmpdir(), "portcullis-full-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=6m", "tmpfs", mount]);
  });
  afterAll(async () => {
    await dashboard?.kill("SIGTERM");
    execFileSync("umount", [mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  it("answers 503 while the disk is full, stores nothing of the batch, and recovers", async () => {
    const dataDir = path.join(mount, "data");
    dashboard = await startDashboard({ ...dashboardEnv(stack), PORTCULLIS_DATA_DIR: dataDir });
    const user = `full-${Date.now()}`;
    const [small] = auditBatches(user, `${user}-a`, 1, 5);
    expect(await post(dashboard.url, small ?? "")).toBe(200);
    expect(await storedBy(dashboard.url, user)).toBe(5);

    // Fill the filesystem, then send a batch that needs new space (≈ 3 MB of events).
    const filler = path.join(mount, "filler");
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
    } catch {
      // dd stops with ENOSPC: that is the point
    }
    const [big] = auditBatches(user, `${user}-b`, 1, 300, 10_000);
    const refused = await fetch(`${dashboard.url}api/audit`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${stack.auditToken}` },
      body: big,
    });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { message: string }).message).toMatch(/could not save/);
    unlinkSync(filler);
    expect(await storedBy(dashboard.url, user)).toBe(5);

    // Space is back: the apiserver's retry of the same batch is stored, exactly once.
    expect(await post(dashboard.url, big ?? "")).toBe(200);
    expect(await post(dashboard.url, big ?? "")).toBe(200);
    expect(await storedBy(dashboard.url, user)).toBe(305);
  });
});
