import { describe, expect, it } from "vitest";
import type { Query } from "@tanstack/react-query";
import { KubeApiError } from "@/lib/k8s/errors";
import { refetchWhileNoAnswer, rereadEvery } from "./no-answer";

const query = (state: Partial<Query["state"]>) => ({ state }) as Pick<Query, "state">;
const error = (status: number, reason: string) =>
  new KubeApiError({ status, reason, message: "m", cluster: "" });

describe("refetchWhileNoAnswer", () => {
  it("asks again, backing off to 30 s, only while the cluster or the dashboard does not answer", () => {
    const unreachable = error(503, "Unreachable");
    const at = (errorUpdateCount: number) =>
      refetchWhileNoAnswer(query({ status: "error", error: unreachable, errorUpdateCount }));
    expect([1, 2, 3, 4, 5, 6, 20].map(at)).toEqual([2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(
      refetchWhileNoAnswer(
        query({ status: "error", error: error(503, "DashboardUnreachable"), errorUpdateCount: 1 }),
      ),
    ).toBe(2000);
    // The apiserver's own answers stand, and so does success.
    for (const e of [error(403, "Forbidden"), error(503, "ServiceUnavailable"), new Error("x")])
      expect(refetchWhileNoAnswer(query({ status: "error", error: e, errorUpdateCount: 1 }))).toBe(
        false,
      );
    expect(refetchWhileNoAnswer(query({ status: "success", error: null }))).toBe(false);
  });
});

describe("rereadEvery", () => {
  it("reads live state nothing watches again every given interval, sooner while there is no answer", () => {
    const every = rereadEvery(30_000);
    expect(every(query({ status: "success", error: null }))).toBe(30_000);
    expect(
      every(query({ status: "error", error: error(403, "Forbidden"), errorUpdateCount: 1 })),
    ).toBe(30_000);
    expect(
      every(query({ status: "error", error: error(503, "Unreachable"), errorUpdateCount: 1 })),
    ).toBe(2000);
  });
});
