import { describe, expect, it } from "vitest";
import { applyLiveMessages } from "./collections";
import type { CollectionData } from "@/lib/api/kube-list";
import type { LiveMessage } from "@/lib/api/resources";
import { FRAME_MS, HIDDEN_FLUSH_MS, liveBatcher, type BatchClock } from "./live-batch";

/** Milliseconds between animation frames in the fake page (whole numbers keep time exact). */
const FRAME = 17;

/** A page's clock, driven by the test: tasks, animation frames every FRAME ms, timers. */
function fakePage() {
  let t = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const frames = new Map<number, () => void>();
  const clock: BatchClock = {
    now: () => t,
    requestFrame: (fn) => {
      const id = nextId++;
      frames.set(id, fn);
      return id;
    },
    cancelFrame: (id) => void frames.delete(id),
    setTimer: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { at: t + ms, fn });
      return id as unknown as ReturnType<typeof setTimeout>;
    },
    clearTimer: (id) => void timers.delete(id as unknown as number),
  };
  /** Runs due timers, in order. */
  const runTimers = () => {
    for (;;) {
      const due = [...timers].filter(([, x]) => x.at <= t).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) return;
      timers.delete(due[0]);
      due[1].fn();
    }
  };
  return {
    clock,
    /** Moves time on by `ms`, running timers that come due and, if `visible`, frames. */
    advance(ms: number, visible = true) {
      const end = t + ms;
      while (t < end) {
        t = Math.min(end, Math.floor(t / FRAME) * FRAME + FRAME);
        runTimers();
        if (visible && t % FRAME === 0) {
          const due = [...frames.values()];
          frames.clear();
          for (const fn of due) fn();
        }
      }
      runTimers();
    },
    runTimers,
  };
}

const obj = (name: string, rv: number) => ({ metadata: { name, resourceVersion: String(rv) } });

describe("liveBatcher", () => {
  it("applies a burst of 1,000 events in a handful of batches, ending where they lead", () => {
    const page = fakePage();
    let data: CollectionData | undefined = { resourceVersion: "0", items: [] };
    const batches: number[] = [];
    const b = liveBatcher((batch) => {
      const msgs = batch.get("c") ?? [];
      batches.push(msgs.length);
      data = applyLiveMessages(data, msgs);
    }, page.clock);
    // 1,000 events over about 100 ms, ten every millisecond.
    for (let i = 0; i < 1_000; i++) {
      const msg: LiveMessage =
        i % 4 === 3
          ? { collection: "c", type: "DELETED", object: obj(`o${i - 1}`, i + 1) }
          : { collection: "c", type: "ADDED", object: obj(`o${i}`, i + 1) };
      b.push(msg);
      if (i % 10 === 9) page.advance(1);
    }
    page.advance(50);
    // One batch per frame at most, plus the first one after the quiet start.
    expect(batches.length).toBeLessThanOrEqual(Math.ceil(100 / FRAME) + 2);
    expect(batches.reduce((a, n) => a + n, 0)).toBe(1_000);
    expect(data?.items.length).toBe(500);
    expect(data?.resourceVersion).toBe("1000");
  });

  it("applies a single change at once, not a frame later", () => {
    const page = fakePage();
    const seen: number[] = [];
    const b = liveBatcher((batch) => seen.push(batch.get("c")?.length ?? 0), page.clock);
    page.advance(100);
    b.push({ collection: "c", type: "ADDED", object: obj("a", 1) });
    expect(seen).toEqual([1]);
    // Another just after: it waits for the frame, with its neighbours.
    b.push({ collection: "c", type: "ADDED", object: obj("b", 2) });
    b.push({ collection: "c", type: "ADDED", object: obj("c", 3) });
    page.runTimers();
    expect(seen).toEqual([1]);
    page.advance(FRAME_MS + 1);
    expect(seen).toEqual([1, 2]);
  });

  it("applies queued events without frames (a hidden tab), and nothing after stop", () => {
    const page = fakePage();
    const seen: number[] = [];
    const b = liveBatcher((batch) => seen.push(batch.get("c")?.length ?? 0), page.clock);
    b.push({ collection: "c", type: "ADDED", object: obj("a", 1) });
    page.runTimers();
    b.push({ collection: "c", type: "ADDED", object: obj("b", 2) });
    page.advance(HIDDEN_FLUSH_MS - 1, false);
    expect(seen).toEqual([1]);
    page.advance(1, false);
    expect(seen).toEqual([1, 1]);
    page.advance(100, false);
    b.push({ collection: "c", type: "ADDED", object: obj("c", 3) });
    // Queued behind it, then the stream closes.
    b.push({ collection: "c", type: "ADDED", object: obj("d", 4) });
    b.stop();
    page.advance(1_000);
    expect(seen).toEqual([1, 1, 1]);
  });
});
