/**
 * The decision feed's catch-up (/api/decisions/stream with `after` or Last-Event-ID): a client
 * that reconnects after more decisions were stored than one read takes gets every one of them,
 * in order, and then the live ones — not a resync. On a busy store (thousands of decisions a
 * second) a page reading its list and opening the stream misses that many, and a resync there
 * only starts the same reconnection again.
 */
import { describe, expect, it } from "vitest";
import { policyHeaders } from "../../test/api-headers";
import { auditBatches, eventsIn } from "../../test/audit-batches";
import { readStack } from "../../cluster/harness/stack";

const stack = readStack();

async function store(batches: string[]): Promise<void> {
  for (const body of batches) {
    const res = await fetch(`${stack.dashboardUrl}/api/audit`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${stack.auditToken}` },
      body,
    });
    expect(res.status, await res.text()).toBe(200);
  }
}

interface Frame {
  event: string;
  data: string;
  id?: string;
}

/** The feed's frames, read until `enough` says so or the server ends the stream. */
async function readFeed(query: string, enough: (frames: Frame[]) => boolean): Promise<Frame[]> {
  const ctl = new AbortController();
  const res = await fetch(`${stack.dashboardUrl}/api/decisions/stream?${query}`, {
    headers: policyHeaders(stack.contexts.admin),
    signal: ctl.signal,
  });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buf = "";
  try {
    while (!enough(frames)) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buf.indexOf("\n\n")) !== -1) {
        const lines = buf.slice(0, end).split("\n");
        buf = buf.slice(end + 2);
        const field = (name: string) =>
          lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
        const data = field("data");
        if (data !== undefined)
          frames.push({ event: field("event") ?? "message", data, id: field("id") });
      }
    }
  } finally {
    ctl.abort();
    await reader.cancel().catch(() => undefined);
  }
  return frames;
}

const decisionsIn = (frames: Frame[]) =>
  frames
    .filter((f) => f.event === "decisions")
    .flatMap(
      (f) => (JSON.parse(f.data) as { items: Array<{ id: number; auditID: string }> }).items,
    );

describe("the decision feed's catch-up", () => {
  it("sends every decision stored since the client's id, page after page, then the live ones", async () => {
    const user = `catch-up-${Date.now()}`;
    // 4,500 decisions: more than two of the catch-up's reads (2,000 each).
    const missed = auditBatches(user, `${user}-missed`, 18, 250);
    const count = missed.reduce((n, b) => n + eventsIn(b), 0);
    expect(count).toBe(4_500);
    await store(missed);

    // A live batch once the catch-up is done: the feed has sent all the missed ones by then.
    const live = auditBatches(user, `${user}-live`, 1, 10);
    let storingLive: Promise<void> | undefined;
    const frames = await readFeed(`user=${user}&after=0`, (got) => {
      if (got.some((f) => f.event === "resync")) return true;
      const n = decisionsIn(got).length;
      if (n >= count) storingLive ??= store(live);
      return n >= count + 10;
    });
    await storingLive;
    expect(frames.filter((f) => f.event === "resync")).toEqual([]);
    const items = decisionsIn(frames);
    expect(items).toHaveLength(count + 10);
    const ids = items.map((d) => d.id);
    // Each once, oldest first (the live ones last), and each frame's id the newest it carries.
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, count)).toEqual([...ids.slice(0, count)].sort((a, b) => a - b));
    expect(items.slice(count).every((d) => d.auditID.startsWith(`${user}-live`))).toBe(true);
    const last = frames.filter((f) => f.event === "decisions").at(-1);
    expect(Number(last?.id)).toBe(Math.max(...ids));
  });
});
