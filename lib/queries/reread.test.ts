import { describe, expect, it } from "vitest";
import { KubeApiError } from "@/lib/k8s/errors";
import { TALLY_REFRESH_MS, decisionTallyQuery } from "./decisions";
import { HEALTH_REREAD_MS, healthQuery } from "./health";
import { PREDICT_STATE_REREAD_MS, predictStateQuery } from "./predict";
import { PARAMS_REREAD_MS, policyParamsQuery } from "./policies";
import { uninitializedQuery } from "./initializers";

/** A query's refetch interval after a read that ended in `state`. */
function after(q: { refetchInterval?: unknown }, state: Record<string, unknown>): unknown {
  const interval = q.refetchInterval;
  return typeof interval === "function" ? interval({ state }) : interval;
}

/** A query's refetch interval after a successful read. */
const afterSuccess = (q: { refetchInterval?: unknown }) => after(q, { status: "success" });

/** … after a first read the cluster did not answer (503 Unreachable), or refused (403). */
const afterFailure = (q: { refetchInterval?: unknown }, status: 503 | 403) =>
  after(q, {
    status: "error",
    errorUpdateCount: 1,
    error: new KubeApiError({
      status,
      reason: status === 503 ? "Unreachable" : "Forbidden",
      message: "x",
      cluster: "ctx",
    }),
  });

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

describe("reports read on an interval are asked again sooner while the cluster does not answer", () => {
  it("the health report: every 15 s, after 2 s when there was no answer", () => {
    const q = healthQuery("ctx", {});
    expect(afterSuccess(q)).toBe(HEALTH_REREAD_MS);
    expect(afterFailure(q, 503)).toBe(2000);
    expect(afterFailure(q, 403)).toBe(HEALTH_REREAD_MS);
  });
  it("the overview's decision tally: every 15 s, after 2 s when there was no answer", () => {
    const q = decisionTallyQuery("ctx");
    expect(afterSuccess(q)).toBe(TALLY_REFRESH_MS);
    expect(afterFailure(q, 503)).toBe(2000);
    expect(afterFailure(q, 403)).toBe(TALLY_REFRESH_MS);
  });
});
