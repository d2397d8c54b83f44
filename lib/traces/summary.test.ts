import { describe, expect, it } from "vitest";
import {
  summarizeCalls,
  tracedDurations,
  TRACE_BOUNDS_MS,
  type RequestCall,
  type TracedCall,
} from "./summary";

const call = (durationMs: number, startMs: number, failed = false): TracedCall => ({
  startMs,
  durationMs,
  operation: "CREATE",
  resource: "/v1, Resource=configmaps",
  subresource: "",
  uid: `u${startMs}`,
  traceId: "t",
  failed,
});

describe("summarizeCalls", () => {
  it("is undefined without calls", () => {
    expect(summarizeCalls([], 10)).toBeUndefined();
  });

  it("gives exact nearest-rank percentiles, the distribution and the latest calls", () => {
    const calls = Array.from({ length: 100 }, (_, i) => call(i + 1, 1000 + i));
    const s = summarizeCalls(calls, 10, 3)!;
    expect(s).toMatchObject({ calls: 100, p50: 50, p90: 90, p99: 99, max: 100, atTimeout: 0 });
    // ≤5: 1..5, ≤10: 6..10, ≤25: 11..25, ≤50: 26..50, ≤100: 51..100.
    expect(s.histogram.slice(0, 5)).toEqual([5, 5, 15, 25, 50]);
    expect(s.histogram).toHaveLength(TRACE_BOUNDS_MS.length + 1);
    expect(s.recent.map((c) => c.durationMs)).toEqual([100, 99, 98]);
  });

  it("counts calls that ran into the timeout and calls that failed", () => {
    const s = summarizeCalls([call(999.5, 1, true), call(1001, 2, true), call(12, 3)], 1)!;
    expect(s.atTimeout).toBe(2);
    expect(s.failed).toBe(2);
    expect(s.histogram[7]).toBe(1); // ≤ 1000 ms
    expect(s.histogram[8]).toBe(1); // ≤ 2500 ms
  });
});

describe("tracedDurations", () => {
  const rc = (
    webhook: string,
    durationMs: number,
    kind: RequestCall["kind"] = "mutating",
    configuration = "cfg",
  ): RequestCall => ({
    kind,
    configuration,
    webhook,
    startMs: durationMs,
    durationMs,
    failed: false,
  });
  const calls = [
    rc("m.example.com", 3),
    rc("v.example.com", 1002, "validating"),
    rc("m.example.com", 4),
    rc("m.example.com", 7, "mutating", "other-cfg"),
  ];

  it("takes the calls of the decision's webhook, configuration and phase", () => {
    const d = { kind: "validating-webhook", hook: "v.example.com", configuration: "cfg" };
    expect(tracedDurations(d, calls)).toEqual([1002]);
    expect(tracedDurations({ ...d, kind: "mutating-webhook" }, calls)).toEqual([]);
    // A denial's decision does not know the phase or configuration: the hook's name decides.
    expect(
      tracedDurations({ kind: "webhook", hook: "v.example.com", configuration: "" }, calls),
    ).toEqual([1002]);
  });

  it("takes a reinvoked hook's call of the decision's round", () => {
    const d = { kind: "mutating-webhook", hook: "m.example.com", configuration: "cfg" };
    expect(tracedDurations(d, calls)).toEqual([3, 4]);
    expect(tracedDurations({ ...d, round: 0 }, calls)).toEqual([3]);
    expect(tracedDurations({ ...d, round: 1 }, calls)).toEqual([4]);
  });

  it("has nothing for policies", () => {
    expect(
      tracedDurations(
        { kind: "validating-policy", hook: "m.example.com", configuration: "" },
        calls,
      ),
    ).toEqual([]);
  });
});
