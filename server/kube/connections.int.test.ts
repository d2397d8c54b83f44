/**
 * The connections to the apiserver a process holds are all the kube client's, and it says which
 * hold them (kubeConnections, reported by /api/health): kept alive between requests, carrying a
 * request, or a watch's own. Counted against the process's sockets to the apiserver's port
 * (/proc/<pid>/fd and /proc/net/tcp), after requests aborted in flight, watches aborted and
 * watches the apiserver ended; and the kept-alive ones close once idle, leaving none behind. A
 * dashboard's count covers every copy of the client its server bundles (route handlers, pages,
 * the watches started with the server).
 */
import { setMaxListeners } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardEnv, readStack, type StackInfo } from "../../cluster/harness/stack";
import { startDashboard, type DashboardProcess } from "../../test/dashboard-process";
import { policyHeaders } from "../../test/api-headers";
import type { ProcessHealth } from "@/lib/api/health-process";
import { KubeClient, kubeConnections, type KubeConnections } from "./client";

/** A kept-alive connection closes 30 s after its last request (client.ts, IDLE_SOCKET_MS). */
const DRAINED_WITHIN_MS = 45_000;

let stack: StackInfo;
let port: number;
let dashboard: DashboardProcess | undefined;

beforeAll(() => {
  stack = readStack();
  port = Number(new URL(stack.server).port);
});

afterAll(() => {
  dashboard?.stop();
});

/** Open TCP connections of process `pid` to `remotePort` on this machine. */
function socketsTo(pid: number | "self", remotePort: number): number {
  const inodes = new Set<string>();
  for (const f of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(f, "utf8").split("\n").slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length < 10 || c[3] === "0A") continue; // listening
      if (parseInt(c[2]?.split(":")[1] ?? "", 16) === remotePort) inodes.add(c[9] ?? "");
    }
  }
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = "";
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode && inodes.has(inode)) n++;
  }
  return n;
}

const total = (c: KubeConnections) => c.idle + c.inUse + c.own;

/** The process's sockets to the apiserver against what its kube client says it holds. */
async function tally(pid: number | "self", held: () => Promise<KubeConnections> | KubeConnections) {
  const before = await held();
  const sockets = socketsTo(pid, port);
  const after = await held();
  // A connection opened or closed between the two reads is not a difference: read again.
  return { sockets, held: total(before) === total(after) ? total(after) : -1, by: after };
}

function adminClient(): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromFile(stack.kubeconfig);
  kc.setCurrentContext(stack.contexts.admin);
  return new KubeClient(stack.contexts.admin, kc);
}

describe("connections to the apiserver", () => {
  it("are all the kube client's, by what holds them, and the kept-alive ones close once idle", async () => {
    const client = adminClient();
    const review = (signal?: AbortSignal) =>
      client
        .request({
          method: "POST",
          path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "SelfSubjectAccessReview",
            spec: { resourceAttributes: { group: "", resource: "namespaces", verb: "list" } },
          },
          signal,
        })
        .then(
          () => "answered",
          () => "failed",
        );
    const inProcess = () => tally("self", kubeConnections);
    const settled = (t: Awaited<ReturnType<typeof inProcess>>) => t.sockets === t.held;

    // A burst of concurrent requests (as many streams' access rechecks at once), a third of them
    // aborted while in flight: what stays is kept alive in the pool, nothing else.
    const abort = new AbortController();
    setMaxListeners(64, abort.signal);
    const burst = Array.from({ length: 48 }, (_, i) => review(i % 3 ? undefined : abort.signal));
    setTimeout(() => abort.abort(), 5);
    const outcomes = await Promise.all(burst);
    expect(outcomes.filter((o) => o === "answered").length).toBeGreaterThanOrEqual(32);
    await expect.poll(inProcess, { timeout: 10_000 }).toSatisfy(settled);
    const pooled = await inProcess();
    expect(pooled.by).toMatchObject({ inUse: 0, own: 0 });
    expect(pooled.by.idle).toBeGreaterThan(0);

    // Watches ride connections of their own: counted while open, gone once aborted or ended.
    const stop = new AbortController();
    const opened: string[] = [];
    const watches = Array.from({ length: 3 }, () =>
      client
        .watch({ path: "/api/v1/namespaces", signal: stop.signal, timeoutMs: 60_000 }, (e) => {
          if (e.type === "ADDED") opened.push("event");
        })
        .catch(() => undefined),
    );
    await expect.poll(() => kubeConnections().own, { timeout: 10_000 }).toBe(3);
    await expect.poll(inProcess, { timeout: 10_000 }).toSatisfy(settled);
    stop.abort();
    await Promise.all(watches);
    await client.watch({ path: "/api/v1/namespaces", query: { timeoutSeconds: 1 } }, () => {});
    await expect.poll(() => kubeConnections().own, { timeout: 10_000 }).toBe(0);
    await expect.poll(inProcess, { timeout: 10_000 }).toSatisfy(settled);
    expect(opened.length).toBeGreaterThan(0);

    // Nothing sent any more: every kept-alive connection closes after its idle time.
    await expect
      .poll(inProcess, { timeout: DRAINED_WITHIN_MS, interval: 500 })
      .toSatisfy((t: Awaited<ReturnType<typeof inProcess>>) => t.sockets === 0 && t.held === 0);
  }, 90_000);

  it("are counted by a dashboard's /api/health across its bundles", async () => {
    dashboard = await startDashboard(dashboardEnv(stack));
    const d = dashboard;
    const pid = d.pid;
    if (pid === undefined) throw new Error("the dashboard has no pid");
    const health = async () =>
      ((await (await fetch(`${d.url}api/health`)).json()) as ProcessHealth).apiserverConnections;
    // An API route, a page rendered on the server, and the watches the server starts with.
    const api = await fetch(`${d.url}api/overview`, {
      headers: policyHeaders(stack.contexts.admin),
    });
    expect(api.status).toBe(200);
    const page = await fetch(`${d.url}namespaces`, {
      headers: { cookie: `portcullis-context=${encodeURIComponent(stack.contexts.admin)}` },
    });
    expect(page.status).toBe(200);
    await page.text();
    const counted = () => tally(pid, health);
    await expect
      .poll(counted, { timeout: 15_000 })
      .toSatisfy((t: Awaited<ReturnType<typeof counted>>) => t.sockets === t.held);
    const t = await counted();
    expect(t.sockets).toBeGreaterThan(0);
  });
});
