/**
 * The shared watch hub against the real apiserver, through a dashboard of its own with short
 * timings: a stream stays live across upstream watches that end and are renewed from their
 * resourceVersion (no event lost, no duplicate SYNC), and a watch nobody subscribes to any more
 * is stopped after its idle time.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardEnv, readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { startDashboard, type DashboardProcess } from "../../test/dashboard-process";

const HOOKS = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
let stack: StackInfo;
let dashboard: DashboardProcess;
const names: string[] = [];

beforeAll(async () => {
  stack = readStack();
  dashboard = await startDashboard({
    ...dashboardEnv(stack),
    PORTCULLIS_WATCH_IDLE_MS: "300",
    PORTCULLIS_WATCH_TIMEOUT_SECONDS: "1",
  });
});

afterAll(async () => {
  for (const n of names) {
    await httpsRequest(`${stack.server}${HOOKS}/${n}`, {
      method: "DELETE",
      ca: readFileSync(stack.caFile),
      token: stack.tokens.admin,
    });
  }
  dashboard?.stop();
});

async function health(): Promise<{ upstreamWatches: number }> {
  return (await (await fetch(`${dashboard.url}api/health`)).json()) as { upstreamWatches: number };
}

async function create(name: string): Promise<void> {
  names.push(name);
  const res = await httpsRequest(`${stack.server}${HOOKS}`, {
    method: "POST",
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
    body: { metadata: { name }, webhooks: [] },
  });
  expect(res.status).toBe(201);
}

describe("watch hub", () => {
  it("keeps a stream live across renewed upstream watches, then stops the idle watch", async () => {
    const abort = new AbortController();
    const res = await fetch(
      `${dashboard.url}api/watch?r=admissionregistration.k8s.io/v1/mutatingwebhookconfigurations`,
      {
        headers: { "sec-fetch-site": "same-origin", "x-portcullis-context": stack.contexts.admin },
        signal: abort.signal,
      },
    );
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const messages: Array<{ type: string; object?: { metadata?: { name?: string } } }> = [];
    let buffer = "";
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffer += new TextDecoder().decode(value);
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of block.split("\n"))
            if (line.startsWith("data: "))
              messages.push(JSON.parse(line.slice(6)) as (typeof messages)[number]);
          end = buffer.indexOf("\n\n");
        }
      }
    })();
    await expect.poll(() => messages.filter((m) => m.type === "SYNC").length).toBe(1);
    expect((await health()).upstreamWatches).toBe(1);

    // Each upstream watch ends after a second; changes made across several renewals all arrive.
    const base = `hub-${Date.now()}`;
    for (let i = 0; i < 4; i++) {
      await create(`${base}-${i}`);
      await new Promise((r) => setTimeout(r, 700));
    }
    await expect
      .poll(
        () =>
          messages
            .filter((m) => m.type === "ADDED")
            .map((m) => m.object?.metadata?.name)
            .filter((n) => n?.startsWith(base)).length,
        { timeout: 10_000 },
      )
      .toBe(4);
    // Renewals resume from the resourceVersion: no relist, so no second SYNC.
    expect(messages.filter((m) => m.type === "SYNC").length).toBe(1);

    abort.abort();
    await pump;
    await expect.poll(async () => (await health()).upstreamWatches, { timeout: 5_000 }).toBe(0);
  });
});
