/**
 * Several replicas, as the chart runs them with PostgreSQL: two shared-mode dashboard processes on
 * the real control plane and one real PostgreSQL database, sharing the session secret. A session
 * started on one is honoured by the other and ended for both by signing out on either; decisions
 * the apiserver's audit webhook sends to one are listed by the other and reach a live feed open
 * on the other as they are stored.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startSharedDashboard, type SharedDashboard } from "../../cluster/harness/shared-dashboard";
import { sessionCookieOf, sharedCall } from "../../test/shared-api";
import { startPostgres, type TestPostgres } from "../../test/postgres";
import { auditBatches } from "../../test/audit-batches";
import type { DecisionStreamMessage } from "@/lib/api/decisions";

let stack: StackInfo;
let pg: TestPostgres | undefined;
let a: SharedDashboard | undefined;
let b: SharedDashboard | undefined;

beforeAll(async () => {
  stack = readStack();
  pg = await startPostgres();
  const sessionSecret = randomBytes(32).toString("hex");
  a = await startSharedDashboard(stack, { databaseUrl: pg.url, sessionSecret });
  b = await startSharedDashboard(stack, { databaseUrl: pg.url, sessionSecret });
}, 180_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await pg?.stop();
});

function replicas(): [SharedDashboard, SharedDashboard] {
  if (!a || !b) throw new Error("the replicas did not start");
  return [a, b];
}

async function signIn(d: SharedDashboard, token: string): Promise<string> {
  const res = await sharedCall(d.url, "POST", "/api/session", { body: { token } });
  expect(res.status, await res.clone().text()).toBe(200);
  return sessionCookieOf(res);
}

async function postAudit(d: SharedDashboard, body: string): Promise<void> {
  const res = await fetch(`${d.url}/api/audit`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.auditToken}`, "content-type": "application/json" },
    body,
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function listedBy(d: SharedDashboard, cookie: string, user: string): Promise<string[]> {
  const res = await sharedCall(d.url, "GET", `/api/decisions?user=${user}&from=0&limit=500`, {
    cookie,
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { items: Array<{ auditID: string }> };
  return body.items.map((i) => i.auditID).sort();
}

/** Reads a live decision feed until `n` decisions arrived (or the deadline), then closes it. */
async function liveFeed(d: SharedDashboard, cookie: string, user: string) {
  const ctl = new AbortController();
  const res = await sharedCall(d.url, "GET", `/api/decisions/stream?user=${user}`, { cookie });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const got: string[] = [];
  let connected!: () => void;
  const ready = new Promise<void>((r) => (connected = r));
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buf.indexOf("\n\n")) !== -1) {
        const frame = buf.slice(0, end);
        buf = buf.slice(end + 2);
        if (frame.includes(": connected")) connected();
        const data = frame.split("\n").find((l) => l.startsWith("data: "));
        if (frame.includes("event: decisions") && data) {
          const msg = JSON.parse(data.slice(6)) as DecisionStreamMessage;
          got.push(...msg.items.map((i) => i.auditID));
        }
      }
    }
  })();
  return {
    ready,
    async until(n: number, ms = 20_000): Promise<string[]> {
      const deadline = Date.now() + ms;
      while (got.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300)); // a repeat would arrive by now
      ctl.abort();
      await reader.cancel().catch(() => undefined);
      await reading;
      return [...got].sort();
    },
  };
}

describe("two dashboard replicas on one PostgreSQL", () => {
  it("share sessions: signed in on one, served by the other; signed out on either, refused by both", async () => {
    const [one, two] = replicas();
    const cookie = await signIn(one, stack.tokens.viewer);
    for (const d of [one, two]) {
      const who = await sharedCall(d.url, "GET", "/api/session", { cookie });
      expect(who.status).toBe(200);
      expect(((await who.json()) as { username: string }).username).toBe("viewer");
      const list = await sharedCall(
        d.url,
        "GET",
        "/api/resources/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        { cookie },
      );
      expect(list.status).toBe(200);
    }
    const out = await sharedCall(two.url, "DELETE", "/api/session", { cookie });
    expect(out.status).toBeLessThan(300);
    for (const d of [one, two]) {
      expect((await sharedCall(d.url, "GET", "/api/session", { cookie })).status).toBe(401);
    }
  });

  it("share decisions: stored through one, listed by both and streamed live by the other", async () => {
    const [one, two] = replicas();
    const cookie = await signIn(one, stack.tokens.admin);
    const user = `replica-${Date.now().toString(36)}`;
    const feedOnTwo = await liveFeed(two, cookie, user);
    const feedOnOne = await liveFeed(one, cookie, user);
    await Promise.all([feedOnTwo.ready, feedOnOne.ready]);
    // Each replica listens for the others' commits from the first use of its store (the streams
    // above): opening the store waits until LISTEN is in place.
    const [first, second] = auditBatches(user, user, 2, 25);
    await postAudit(one, first ?? "");
    await postAudit(two, second ?? "");
    const expected = [
      ...Array.from({ length: 25 }, (_, i) => `${user}-0-${i}`),
      ...Array.from({ length: 25 }, (_, i) => `${user}-1-${i}`),
    ].sort();
    expect(await listedBy(one, cookie, user)).toEqual(expected);
    expect(await listedBy(two, cookie, user)).toEqual(expected);
    // Each live feed saw every decision once: its own replica's batch and the other's.
    expect(await feedOnTwo.until(expected.length)).toEqual(expected);
    expect(await feedOnOne.until(expected.length)).toEqual(expected);
  });
});
