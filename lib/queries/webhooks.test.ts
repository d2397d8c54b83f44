import { describe, expect, it } from "vitest";
import { KubeApiError } from "@/lib/k8s/errors";
import {
  backendServicesKey,
  lintStateQuery,
  lintStateToUse,
  BACKEND_REREAD_MS,
  LINT_STATE_REREAD_MS,
  webhookDetailsQuery,
} from "./webhooks";
import type { LintStateData } from "@/lib/api/webhooks";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { healthQuery } from "./health";

const config = (...services: Array<[string, string] | string>): ConfigLike => ({
  metadata: { name: "c" },
  webhooks: services.map((s, i) => ({
    name: `h${i}.example.com`,
    clientConfig: typeof s === "string" ? { url: s } : { service: { namespace: s[0], name: s[1] } },
  })),
});

describe("backendServicesKey", () => {
  it("names every backend Service of both kinds once, sorted, and no url hook", () => {
    expect(
      backendServicesKey(
        [config(["b", "svc"], "https://example.com/x"), config(["a", "svc"])],
        [config(["b", "svc"], ["a", "other"])],
      ),
    ).toBe("a/other a/svc b/svc");
  });
  it("changes when a hook is added or pointed at another Service, not when nothing backend changes", () => {
    const before = backendServicesKey([config(["a", "svc"])], []);
    expect(backendServicesKey([config(["a", "svc"]), config(["a", "svc"])], [])).toBe(before);
    expect(backendServicesKey([config(["a", "svc"]), config(["a", "new"])], [])).not.toBe(before);
    expect(backendServicesKey([config(["a", "moved"])], [])).not.toBe(before);
    expect(backendServicesKey(undefined, undefined)).toBe("");
  });
});

const state: LintStateData = {
  namespaces: { default: {} },
  discovery: [],
  services: [],
  endpointSlices: [],
  pods: [],
  workloads: [],
  serverMinor: 37,
  notices: ["n"],
};

describe("lintStateToUse", () => {
  it("uses an answer read for the configurations' own Services whole", () => {
    expect(lintStateToUse(state, false)).toBe(state);
  });
  it("drops the backend part of an answer read for other Services: those checks run offline meanwhile", () => {
    expect(lintStateToUse(state, true)).toEqual({
      namespaces: { default: {} },
      discovery: [],
      serverMinor: 37,
      notices: ["n"],
    });
    expect(lintStateToUse(undefined, true)).toBeUndefined();
  });
});

describe("lintStateQuery", () => {
  const q = lintStateQuery("ctx", "a/svc");
  const interval = (s: object) =>
    typeof q.refetchInterval === "function"
      ? q.refetchInterval({ state: s } as unknown as Parameters<typeof q.refetchInterval>[0])
      : q.refetchInterval;
  it("is keyed by the Services it reads", () => {
    expect(q.queryKey).toEqual(["lint-state", "ctx", "a/svc"]);
  });
  it("is read again every LINT_STATE_REREAD_MS, sooner while the cluster does not answer", () => {
    expect(interval({ status: "success", data: state })).toBe(LINT_STATE_REREAD_MS);
    const err = (status: number, reason: string) =>
      new KubeApiError({ status, reason, message: reason, cluster: "ctx" });
    const failed = (e: KubeApiError) =>
      interval({ status: "error", error: e, errorUpdateCount: 1 });
    expect(failed(err(503, "Unreachable"))).toBe(2000);
    expect(failed(err(403, "Forbidden"))).toBe(LINT_STATE_REREAD_MS);
  });
  it("keeps the previous answer of the same context only", () => {
    const keep = q.placeholderData as (
      p: unknown,
      pq: { queryKey: unknown[] } | undefined,
    ) => unknown;
    expect(keep(state, { queryKey: ["lint-state", "ctx", "a/other"] })).toBe(state);
    expect(keep(state, { queryKey: ["lint-state", "other-ctx", "a/svc"] })).toBeUndefined();
  });
});

describe("webhookDetailsQuery", () => {
  it("reads the hooks' backends again every BACKEND_REREAD_MS, as often as the health card", () => {
    const afterSuccess = (q: { refetchInterval?: unknown }) =>
      typeof q.refetchInterval === "function"
        ? (q.refetchInterval as (q: unknown) => unknown)({ state: { status: "success" } })
        : q.refetchInterval;
    const q = webhookDetailsQuery("ctx", "validatingwebhookconfigurations", "c", "7");
    expect(afterSuccess(q)).toBe(BACKEND_REREAD_MS);
    expect(afterSuccess(healthQuery("ctx"))).toBe(BACKEND_REREAD_MS);
  });
});
