import { describe, expect, it } from "vitest";
import { KubeApiError } from "@/lib/k8s/errors";
import { backendPodsQuery, templateReread, TEMPLATE_REREAD_MS } from "./backend-pods";
import type { BackendPodsData } from "@/lib/api/webhooks";

const answer = (workloads: BackendPodsData["workloads"]): BackendPodsData => ({
  pods: [],
  workloads,
  forbidden: {},
  notices: [],
});
const deployment = {
  kind: "Deployment" as const,
  metadata: { name: "guard", namespace: "guard-system" },
  spec: { template: { metadata: { labels: { app: "guard", opt: "out" } } } },
};

describe("backend pod labels are read again", () => {
  it("every TEMPLATE_REREAD_MS when taken from workload templates, which nothing watches", () => {
    expect(templateReread(answer([deployment]))).toBe(TEMPLATE_REREAD_MS);
  });
  it("not on a timer for running pods' labels (their endpoints re-read them), nor before an answer", () => {
    expect(templateReread(answer([]))).toBe(false);
    expect(templateReread(undefined)).toBe(false);
  });
  it("by the query's own interval", () => {
    const interval = backendPodsQuery(
      "ctx",
      [{ namespace: "guard-system", selector: "app=guard" }],
      "at",
    ).refetchInterval;
    const withData = (data: BackendPodsData) =>
      typeof interval === "function"
        ? interval({ state: { data } } as unknown as Parameters<typeof interval>[0])
        : interval;
    expect(withData(answer([deployment]))).toBe(TEMPLATE_REREAD_MS);
    expect(withData(answer([]))).toBe(false);
    // While the cluster does not answer, asked again sooner, as every query is.
    const unreachable = new KubeApiError({
      status: 503,
      reason: "Unreachable",
      message: "m",
      cluster: "ctx",
    });
    expect(
      typeof interval === "function"
        ? interval({
            state: { status: "error", error: unreachable, errorUpdateCount: 1 },
          } as unknown as Parameters<typeof interval>[0])
        : interval,
    ).toBe(2000);
  });
});
