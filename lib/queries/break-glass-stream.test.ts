import { describe, expect, it } from "vitest";
import { followBreakGlass, type EventSourceLike } from "./break-glass-stream";
import { breakGlassListQuery } from "./break-glass";

class FakeSource implements EventSourceLike {
  readyState = 0;
  onopen: ((ev: Event) => unknown) | null = null;
  onerror: ((ev: Event) => unknown) | null = null;
  closed = false;
  private readonly listeners = new Map<string, Array<(ev: MessageEvent<string>) => void>>();
  addEventListener(type: string, listener: (ev: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  emit(type: string) {
    for (const l of this.listeners.get(type) ?? []) l({ data: "{}" } as MessageEvent<string>);
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event("open"));
  }
  /** The browser's answer to a refused reconnection: closed for good, then onerror. */
  refuse() {
    this.readyState = 2;
    this.onerror?.(new Event("error"));
  }
  /** A dropped connection the browser reconnects by itself. */
  drop() {
    this.readyState = 0;
    this.onerror?.(new Event("error"));
  }
}

/** Timers moved by hand. */
function manualTimers() {
  let now = 0;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  return {
    set: (fn: () => void, ms: number) => {
      const id = ++seq;
      pending.set(id, { at: now + ms, fn });
      return id as unknown as ReturnType<typeof setTimeout>;
    },
    clear: (t: ReturnType<typeof setTimeout> | undefined) => {
      pending.delete(t as unknown as number);
    },
    advance(ms: number) {
      now += ms;
      for (;;) {
        const due = [...pending.entries()]
          .filter(([, p]) => p.at <= now)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) return;
        pending.delete(due[0]);
        due[1].fn();
      }
    },
    count: () => pending.size,
  };
}

function follow() {
  const sources: FakeSource[] = [];
  const timers = manualTimers();
  let changes = 0;
  const states: boolean[] = [];
  const stop = followBreakGlass({
    open: () => {
      const s = new FakeSource();
      sources.push(s);
      return s;
    },
    onChange: () => changes++,
    onState: (c) => states.push(c),
    timers,
    silenceMs: 45_000,
  });
  return { sources, timers, stop, changes: () => changes, states };
}

describe("followBreakGlass", () => {
  it("reads the list again on each change event and on connecting, never on a clock", () => {
    const f = follow();
    expect(f.sources).toHaveLength(1);
    f.sources[0]!.open();
    expect(f.changes()).toBe(1);
    f.sources[0]!.emit("break-glass");
    f.sources[0]!.emit("break-glass");
    expect(f.changes()).toBe(3);
    // Heartbeats keep it alive and read nothing.
    for (let i = 0; i < 20; i++) {
      f.timers.advance(15_000);
      f.sources[0]!.emit("ping");
    }
    expect(f.changes()).toBe(3);
    expect(f.sources).toHaveLength(1);
  });

  it("reads again after the browser's own reconnection (events may have been missed)", () => {
    const f = follow();
    f.sources[0]!.open();
    f.sources[0]!.drop();
    expect(f.states).toEqual([true, false]);
    f.sources[0]!.open();
    expect(f.changes()).toBe(2);
    expect(f.sources).toHaveLength(1);
  });

  it("opens the stream again after a refused reconnection, with a growing pause", () => {
    const f = follow();
    f.sources[0]!.open();
    f.sources[0]!.refuse();
    expect(f.sources[0]!.closed).toBe(true);
    f.timers.advance(1_999);
    expect(f.sources).toHaveLength(1);
    f.timers.advance(1);
    expect(f.sources).toHaveLength(2);
    f.sources[1]!.refuse();
    f.timers.advance(2_000);
    expect(f.sources).toHaveLength(2);
    f.timers.advance(2_000);
    expect(f.sources).toHaveLength(3);
    f.sources[2]!.open();
    expect(f.changes()).toBe(2);
  });

  it("replaces a connection silent past the heartbeat's bounds", () => {
    const f = follow();
    f.sources[0]!.open();
    f.timers.advance(44_999);
    expect(f.sources).toHaveLength(1);
    f.timers.advance(1);
    expect(f.sources[0]!.closed).toBe(true);
    expect(f.sources).toHaveLength(2);
    f.sources[1]!.open();
    expect(f.changes()).toBe(2);
  });

  it("stops: closes the stream and opens no other", () => {
    const f = follow();
    f.sources[0]!.open();
    f.sources[0]!.refuse();
    f.stop();
    f.timers.advance(120_000);
    expect(f.sources).toHaveLength(1);
    expect(f.timers.count()).toBe(0);
  });
});

describe("the banner's list", () => {
  it("is not polled: the stream invalidates it", () => {
    expect(breakGlassListQuery("ctx")).not.toHaveProperty("refetchInterval");
  });
});
