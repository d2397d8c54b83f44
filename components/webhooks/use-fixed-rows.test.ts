import { describe, expect, it } from "vitest";
import { rowWindow } from "./use-fixed-rows";

const base = { count: 1_000, rowHeight: 30, overscan: 5, top: 0, height: 600 };

describe("rowWindow", () => {
  it("renders the rows in view plus the overscan", () => {
    expect(rowWindow(base)).toEqual({ start: 0, end: 25, totalHeight: 30_000 });
    expect(rowWindow({ ...base, top: 3_000 })).toEqual({
      start: 95,
      end: 125,
      totalHeight: 30_000,
    });
  });

  it("counts a partly visible row as in view", () => {
    expect(rowWindow({ ...base, top: 15, overscan: 0 })).toEqual({
      start: 0,
      end: 21,
      totalHeight: 30_000,
    });
  });

  it("stays within the rows there are", () => {
    expect(rowWindow({ ...base, top: 29_700 })).toEqual({
      start: 985,
      end: 1_000,
      totalHeight: 30_000,
    });
    expect(rowWindow({ ...base, top: 90_000 }).start).toBe(1_000);
    expect(rowWindow({ ...base, count: 0 })).toEqual({ start: 0, end: 0, totalHeight: 0 });
    expect(rowWindow({ ...base, count: 3 })).toEqual({ start: 0, end: 3, totalHeight: 90 });
  });

  it("handles an unmeasured (zero-height) scroll element", () => {
    expect(rowWindow({ ...base, height: 0, overscan: 2 })).toEqual({
      start: 0,
      end: 2,
      totalHeight: 30_000,
    });
  });
});
