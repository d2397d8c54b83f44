import { describe, expect, it } from "vitest";
import { PREDICT_STATE_REREAD_MS, predictStateQuery } from "./predict";
import { PARAMS_REREAD_MS, policyParamsQuery } from "./policies";
import { uninitializedQuery } from "./initializers";

/** A query's refetch interval after a successful read. */
function afterSuccess(q: { refetchInterval?: unknown }): unknown {
  const interval = q.refetchInterval;
  return typeof interval === "function" ? interval({ state: { status: "success" } }) : interval;
}

describe("live state that nothing watches is read again while shown", () => {
  it("the predict page's admission state: every 30 s, and whenever the tab is shown", () => {
    const q = predictStateQuery("ctx");
    expect(afterSuccess(q)).toBe(PREDICT_STATE_REREAD_MS);
    expect(PREDICT_STATE_REREAD_MS).toBe(30_000);
    expect(q.refetchOnWindowFocus).toBe("always");
  });
  it("the policies page's params report: every 30 s (parameter objects are not watched)", () => {
    expect(afterSuccess(policyParamsQuery("ctx", "at"))).toBe(PARAMS_REREAD_MS);
    expect(PARAMS_REREAD_MS).toBe(30_000);
  });
  it("the uninitialized objects: every 15 s", () => {
    expect(afterSuccess(uninitializedQuery("ctx", 600))).toBe(15_000);
  });
});
