/**
 * File mode against the real control plane's audit log (`--audit-log-path`, rotated by the
 * apiserver itself every megabyte): a dashboard of its own (`next start`, its own data dir,
 * PORTCULLIS_AUDIT_LOG set, no audit webhook) follows the log while requests are made that a
 * denying ValidatingAdmissionPolicy rejects. The log rotates while the dashboard runs; then the
 * dashboard is killed (-9) while requests keep coming and the log rotates again while it is down;
 * restarted, it resumes. Every request's Audit-Id is then counted in the store: each stored
 * exactly once — none lost, none duplicated — with the right policy, outcome and message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { readFileSync } from "node:fs";
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
  return true;
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

async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
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
  await until("the policy to deny", () => deniedCreate(true), 30_000);
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
  it("stores every decision once across rotations and a kill -9 restart", async () => {
    const env = {
      ...dashboardEnv(stack),
      PORTCULLIS_DATA_DIR: dir,
      PORTCULLIS_AUDIT_LOG: stack.auditLogPath,
      // No webhook sink here: everything stored came through the file.
      PORTCULLIS_AUDIT_TOKEN: "",
    };
    dashboard = await startDashboard(env);
    const first = dashboard;

    // Running: requests until the apiserver has rotated its log, then a few more.
    const rotatedBefore = backups();
    await sendUntil(() => backups().some((b) => !rotatedBefore.includes(b)));
    for (let i = 0; i < 20; i++) await deniedCreate();
    await until("decisions from before and after the rotation", async () => {
      return (await storedCount(first.url)) === denied.length;
    });

    // Killed while requests stream; they go on until the log has rotated while it is down.
    const at: { kill?: string[] } = {};
    const sending = sendUntil(() => {
      const before = at.kill;
      return before !== undefined && backups().some((b) => !before.includes(b));
    });
    await new Promise((r) => setTimeout(r, 500));
    at.kill = backups();
    const sentAtKill = denied.length;
    await first.kill("SIGKILL");
    await sending;
    for (let i = 0; i < 20; i++) await deniedCreate();
    const whileDown = denied.length - sentAtKill;

    dashboard = await startDashboard(env);
    const second = dashboard;
    // Catching up means reading the rotated files and one fsync'd commit per chunk: on a 2-core
    // machine also running the rest of the suite that took up to a minute.
    await until(
      "every decision after the restart",
      async () => (await storedCount(second.url)) >= denied.length,
      180_000,
    );
    await new Promise((r) => setTimeout(r, 1000)); // a duplicate would show up by now
    expect(await storedCount(second.url)).toBe(denied.length);
    await second.kill("SIGTERM");
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
    // The dashboard was down for a rotation's worth of requests (a megabyte, ≈ 250 of them).
    expect(whileDown).toBeGreaterThan(20);
  }, 300_000);
});
