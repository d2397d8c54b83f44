/**
 * File mode against the real control plane's audit log (`--audit-log-path`, rotated by the
 * apiserver itself every megabyte): a dashboard of its own (`next start`, its own data dir,
 * PORTCULLIS_AUDIT_LOG set, no audit webhook) follows the log while requests are made that a
 * denying ValidatingAdmissionPolicy rejects. The log rotates while the dashboard runs; then the
 * dashboard is killed (-9) while requests keep coming and the log rotates again while it is down;
 * restarted, it resumes. Every request's Audit-Id is then counted in the store: each stored
 * exactly once — none lost, none duplicated — with the right policy, outcome and message.
 *
 * Each phase waits on state, with a time limit of its own: the dashboard answering, the follower
 * having read the live log to the size it had after the last request (its test hook,
 * /api/test-hooks/audit-follower), requests being under way. Nothing waits out a clock.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditLogFiles,
  dashboardEnv,
  readStack,
  type StackInfo,
} from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { policyHeaders } from "../../test/api-headers";
import { startDashboard, type DashboardProcess } from "../../test/dashboard-process";
import { denyInNamespaceBinding } from "../../test/policy-objects";

let stack: StackInfo;
let ca: Buffer;
let dir: string;
let dashboard: DashboardProcess | undefined;
const tag = `filemode-${Date.now().toString(36)}`;
const ns = tag;
const PAD = "p".repeat(3000); // ≈ 4 KB an event: a megabyte every ≈ 250 requests

async function api(method: string, url: string, body?: unknown) {
  return httpsRequest(`${stack.server}${url}`, {
    method,
    token: stack.tokens.admin,
    ca,
    body,
    timeoutMs: 30_000,
  });
}

/** Rotated files of the audit log right now. */
function backups(): string[] {
  return auditLogFiles(stack).slice(0, -1);
}

const denied: string[] = [];
let serial = 0;
/** Told of each denied create (a phase waits until requests are under way). */
const onDenied = new Set<() => void>();

/**
 * One create the policy denies; records its Audit-Id. A probe (before the policy is in effect)
 * may be admitted: it then returns false.
 */
async function deniedCreate(probe = false): Promise<boolean> {
  const name = `cm-${serial++}`;
  const res = await api("POST", `/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name },
    data: { pad: `${name}-${PAD}` },
  });
  if (probe && res.status < 400) return false;
  if (!res.body.includes("file mode probe")) {
    throw new Error(`create ${name} was not denied by the policy: ${res.status} ${res.body}`);
  }
  const id = res.headers["audit-id"];
  if (typeof id !== "string") throw new Error("the apiserver sent no Audit-Id");
  denied.push(id);
  for (const f of onDenied) f();
  return true;
}

/** Resolves once `n` more creates have been denied. */
function deniedMore(n: number): Promise<void> {
  const target = denied.length + n;
  return new Promise((resolve) => {
    const check = () => {
      if (denied.length < target) return;
      onDenied.delete(check);
      resolve();
    };
    onDenied.add(check);
  });
}

/** Sends denied creates, 6 at a time, until `done()` holds. */
async function sendUntil(done: () => boolean): Promise<void> {
  const worker = async () => {
    while (!done()) await deniedCreate();
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}

/** Decisions stored in the namespace, read through the dashboard's own API (the chart's sum). */
async function storedCount(base: string): Promise<number> {
  const res = await fetch(`${base}api/decisions?namespace=${ns}&from=0&limit=1`, {
    headers: policyHeaders(stack.contexts.admin),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    histogram: { buckets: Array<{ counts: Record<string, number> }> };
  };
  return body.histogram.buckets.reduce(
    (n, b) => n + Object.values(b.counts).reduce((a, c) => a + c, 0),
    0,
  );
}

/**
 * Waits until the dashboard's follower has read the live log past `beyond` bytes of it as it is
 * now (everything written before that stored): asks the test hook, which answers once it has or
 * after 30 s, and asks again while the log is rotated under it. Fails after `ms`.
 */
async function followerRead(base: string, beyond: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const live = statSync(stack.auditLogPath, { bigint: true });
    const offset = Math.max(0, Number(live.size) + beyond);
    const res = await fetch(
      `${base}api/test-hooks/audit-follower?ino=${live.ino}&offset=${offset}&waitMs=30000`,
      { headers: policyHeaders(stack.contexts.admin) },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { reached: boolean; stats: unknown };
    if (body.reached) return;
    if (Date.now() > deadline) {
      throw new Error(
        `the follower did not reach ${offset} of the live log: ${JSON.stringify(body.stats)}`,
      );
    }
  }
}

/**
 * Waits until every denied request is stored, and checks none is stored twice. The follower reads
 * the log to its end first; the apiserver writes an event's last stage just after it answers, so
 * while some are missing it waits for the follower to read what is written next.
 */
async function everyDecisionStored(base: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  await followerRead(base, 0, ms);
  let stored = await storedCount(base);
  while (stored < denied.length) {
    await followerRead(base, 1, Math.max(0, deadline - Date.now()));
    stored = await storedCount(base);
  }
  expect(stored).toBe(denied.length);
}

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-filemode-"));
  expect((await api("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  const policy = await api(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
    {
      metadata: { name: tag },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [""],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["configmaps"],
            },
          ],
        },
        validations: [
          {
            expression: "!has(object.data) || !('pad' in object.data)",
            messageExpression: "'file mode probe: ' + object.data.pad",
          },
        ],
      },
    },
  );
  expect(policy.status).toBe(201);
  const binding = await api(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
    denyInNamespaceBinding(tag, ns),
  );
  expect(binding.status).toBe(201);
  // The policy takes effect once the apiserver has compiled it: probe until a create is denied.
  const deadline = Date.now() + 30_000;
  while (!(await deniedCreate(true))) {
    if (Date.now() > deadline) throw new Error("the policy never denied a create");
  }
});

afterAll(async () => {
  await dashboard?.kill("SIGTERM");
  const admission = "/apis/admissionregistration.k8s.io/v1";
  await api("DELETE", `${admission}/validatingadmissionpolicybindings/${tag}`).catch(() => null);
  await api("DELETE", `${admission}/validatingadmissionpolicies/${tag}`).catch(() => null);
  await api("DELETE", `/api/v1/namespaces/${ns}`).catch(() => null);
  rmSync(dir, { recursive: true, force: true });
});

describe("file mode on the apiserver's audit log", () => {
  const env = () => ({
    ...dashboardEnv(stack),
    PORTCULLIS_DATA_DIR: dir,
    PORTCULLIS_AUDIT_LOG: stack.auditLogPath,
    // No webhook sink here: everything stored came through the file.
    PORTCULLIS_AUDIT_TOKEN: "",
  });
  let whileDown = 0;

  it("starts following the log", async () => {
    dashboard = await startDashboard(env());
  }, 90_000);

  it("stores every decision made while it runs, across a rotation", async () => {
    const rotatedBefore = backups();
    await sendUntil(() => backups().some((b) => !rotatedBefore.includes(b)));
    for (let i = 0; i < 20; i++) await deniedCreate();
    await everyDecisionStored((dashboard as DashboardProcess).url, 120_000);
  }, 240_000);

  it("is killed -9 while requests stream, and the log rotates while it is down", async () => {
    const first = dashboard as DashboardProcess;
    const at: { kill?: string[] } = {};
    const underWay = deniedMore(12);
    const sending = sendUntil(() => {
      const before = at.kill;
      return before !== undefined && backups().some((b) => !before.includes(b));
    });
    await underWay;
    at.kill = backups();
    const sentAtKill = denied.length;
    await first.kill("SIGKILL");
    dashboard = undefined;
    await sending;
    for (let i = 0; i < 20; i++) await deniedCreate();
    whileDown = denied.length - sentAtKill;
    // Down for a rotation's worth of requests (a megabyte, ≈ 250 of them).
    expect(whileDown).toBeGreaterThan(20);
  }, 240_000);

  it("restarted, resumes and stores every decision exactly once", async () => {
    dashboard = await startDashboard(env());
    // Catching up means reading the rotated files and one fsync'd commit per chunk.
    await everyDecisionStored(dashboard.url, 180_000);
    await dashboard.kill("SIGTERM");
    dashboard = undefined;

    // Count by Audit-Id in the store itself.
    const db = new Database(path.join(dir, "decisions.sqlite"), { readonly: true });
    try {
      const rows = db
        .prepare(
          "SELECT d.audit_id AS id, COUNT(*) AS n, MIN(o.text) AS outcome, MIN(h.text) AS hook, MIN(d.message) AS message FROM admission_calls d JOIN admission_names o ON o.id = d.outcome JOIN admission_names h ON h.id = d.hook WHERE d.namespace = (SELECT id FROM admission_names WHERE text = ?) GROUP BY d.audit_id",
        )
        .all(ns) as Array<{
        id: string;
        n: number;
        outcome: string;
        hook: string;
        message: string;
      }>;
      expect(rows.map((r) => r.id).sort()).toEqual([...denied].sort());
      expect(rows.filter((r) => r.n !== 1)).toEqual([]);
      for (const r of rows) {
        expect(r.outcome).toBe("rejected");
        expect(r.hook).toBe(tag);
        expect(r.message).toContain("file mode probe: cm-");
      }
      const cursor = db
        .prepare("SELECT pos FROM audit_log_cursor WHERE name = ?")
        .get(stack.auditLogPath) as { pos: number } | undefined;
      expect(cursor?.pos).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  }, 240_000);
});
