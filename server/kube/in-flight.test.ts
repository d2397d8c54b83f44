import { describe, expect, it } from "vitest";
import { InFlight } from "./in-flight";

/** A question whose answer the test gives, counting how often it was asked. */
function question<T>() {
  let answer: (v: T) => void = () => undefined;
  let fail: (e: unknown) => void = () => undefined;
  const asked: AbortSignal[] = [];
  const ask = (signal: AbortSignal) => {
    asked.push(signal);
    return new Promise<T>((resolve, reject) => {
      answer = resolve;
      fail = reject;
    });
  };
  return { ask, asked, answer: (v: T) => answer(v), fail: (e: unknown) => fail(e) };
}

describe("InFlight", () => {
  it("asks once for callers asking the same thing at the same time, and each gets the answer", async () => {
    const flights = new InFlight<boolean>();
    const q = question<boolean>();
    const a = flights.ask("s1 list,watch", q.ask);
    const b = flights.ask("s1 list,watch", q.ask);
    expect(q.asked).toHaveLength(1);
    q.answer(true);
    await expect(Promise.all([a, b])).resolves.toEqual([true, true]);
    expect(flights.size).toBe(0);
  });

  it("keeps no answer: a caller after it was answered asks again", async () => {
    const flights = new InFlight<boolean>();
    const q = question<boolean>();
    const first = flights.ask("k", q.ask);
    q.answer(true);
    await first;
    const second = flights.ask("k", q.ask);
    expect(q.asked).toHaveLength(2);
    q.answer(false);
    await expect(second).resolves.toBe(false);
  });

  it("asks again for a different key", async () => {
    const flights = new InFlight<string>();
    const q1 = question<string>();
    const q2 = question<string>();
    const a = flights.ask("session-a", q1.ask);
    const b = flights.ask("session-b", q2.ask);
    expect(q1.asked).toHaveLength(1);
    expect(q2.asked).toHaveLength(1);
    q2.answer("b");
    q1.answer("a");
    await expect(Promise.all([a, b])).resolves.toEqual(["a", "b"]);
  });

  it("a caller that gives up stops waiting at once; the others still get the answer", async () => {
    const flights = new InFlight<boolean>();
    const q = question<boolean>();
    const gone = new AbortController();
    const a = flights.ask("k", q.ask, gone.signal);
    const b = flights.ask("k", q.ask, new AbortController().signal);
    gone.abort(new Error("tab closed"));
    await expect(a).rejects.toThrow("tab closed");
    expect(q.asked[0]?.aborted).toBe(false);
    q.answer(true);
    await expect(b).resolves.toBe(true);
  });

  it("the question is aborted once every caller has given up, and the next one asks anew", async () => {
    const flights = new InFlight<boolean>();
    const q = question<boolean>();
    const one = new AbortController();
    const two = new AbortController();
    const a = flights.ask("k", q.ask, one.signal);
    const b = flights.ask("k", q.ask, two.signal);
    one.abort(new Error("gone"));
    await expect(a).rejects.toThrow("gone");
    two.abort(new Error("gone too"));
    await expect(b).rejects.toThrow("gone too");
    expect(q.asked[0]?.aborted).toBe(true);
    expect(flights.size).toBe(0);
    const c = flights.ask("k", q.ask);
    expect(q.asked).toHaveLength(2);
    q.answer(true);
    await expect(c).resolves.toBe(true);
  });

  it("a failure reaches every caller and is not kept", async () => {
    const flights = new InFlight<boolean>();
    const q = question<boolean>();
    const a = flights.ask("k", q.ask);
    const b = flights.ask("k", q.ask);
    q.fail(new Error("apiserver unreachable"));
    await expect(a).rejects.toThrow("apiserver unreachable");
    await expect(b).rejects.toThrow("apiserver unreachable");
    expect(flights.size).toBe(0);
  });

  it("a caller already aborted asks nothing", async () => {
    const flights = new InFlight<boolean>();
    const q = question<boolean>();
    const gone = new AbortController();
    gone.abort(new Error("already gone"));
    await expect(flights.ask("k", q.ask, gone.signal)).rejects.toThrow("already gone");
    expect(q.asked).toHaveLength(0);
  });
});
