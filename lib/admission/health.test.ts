import { describe, expect, it } from "vitest";
import { assessHook, type HookHealthInput } from "./health";
import type { WebhookMetrics } from "./metrics";

function metrics(over: Partial<WebhookMetrics> = {}): WebhookMetrics {
  return {
    name: "h.example.com",
    type: "validating",
    calls: 100,
    rejected: 0,
    byCode: { "200": 100 },
    rejections: {},
    failOpen: 0,
    matchConditionErrors: 0,
    matchConditionExclusions: 0,
    buckets: [
      [0.005, 90],
      [0.025, 100],
      [Infinity, 100],
    ],
    durationCount: 100,
    durationSum: 0.5,
    ...over,
  };
}

const healthy: HookHealthInput = {
  failurePolicy: "Fail",
  timeoutSeconds: 10,
  total: metrics(),
  window: metrics(),
  sameName: 1,
  backend: { kind: "url", serverName: "127.0.0.1" },
  probe: {
    status: "ok",
    latencyMs: 3,
    served: {
      subject: "CN=x",
      notAfter: "2030-01-01T00:00:00Z",
      signatureAlgorithm: "ecdsa-with-SHA256",
    },
  },
  ca: { empty: false, daysLeft: 200 },
};

const codes = (i: HookHealthInput) => assessHook(i).reasons.map((r) => `${r.severity}:${r.code}`);

describe("assessHook", () => {
  it("finds nothing wrong with a fast, reachable, trusted hook", () => {
    expect(assessHook(healthy)).toMatchObject({ severity: "ok", reasons: [] });
  });

  it("flags a p99 past half the timeout, and critically near the timeout", () => {
    // p99 ≈ 2.48 s
    const slow = metrics({
      buckets: [
        [1, 10],
        [2.5, 100],
        [10, 100],
        [Infinity, 100],
      ],
    });
    expect(codes({ ...healthy, timeoutSeconds: 4, window: slow })).toEqual(["high:slow"]);
    expect(codes({ ...healthy, timeoutSeconds: 2.5, window: slow })).toEqual(["critical:slow"]);
    expect(codes({ ...healthy, timeoutSeconds: 5, window: slow })).toEqual([]);
  });

  it("flags failing open at all", () => {
    expect(
      codes({ ...healthy, failurePolicy: "Ignore", window: metrics({ failOpen: 1 }) }),
    ).toEqual(["high:fails-open"]);
  });

  it("tells an error-rate jump from a steady trickle", () => {
    const failing = metrics({ rejections: { calling_webhook_error: 20 } });
    expect(codes({ ...healthy, window: failing, previousWindow: metrics() })).toEqual([
      "high:error-rate-jump",
    ]);
    const steady = metrics({ rejections: { calling_webhook_error: 2 } });
    expect(codes({ ...healthy, window: steady, previousWindow: steady })).toEqual([
      "medium:errors",
    ]);
  });

  it("rates backend problems by failure policy", () => {
    const missing = {
      ...healthy,
      backend: { kind: "service" as const, serviceExists: false },
      probe: { status: "not-probed" as const, reason: "" },
    };
    expect(codes(missing)).toEqual(["critical:service-missing"]);
    expect(codes({ ...missing, failurePolicy: "Ignore" })).toEqual(["high:service-missing"]);
    const empty = {
      ...missing,
      backend: { kind: "service" as const, serviceExists: true, readyEndpoints: 0 },
    };
    expect(codes(empty)).toEqual(["critical:no-ready-endpoints"]);
  });

  it("says when a backend cannot be reached from here instead of calling it down", () => {
    const r = assessHook({
      ...healthy,
      probe: { status: "unreachable-from-here", error: "ENOTFOUND" },
    });
    expect(r.severity).toBe("info");
    expect(r.reasons[0]?.code).toBe("not-reachable-from-dashboard");
  });

  it("flags TLS that does not verify, a SAN mismatch and SHA-1", () => {
    expect(
      codes({
        ...healthy,
        probe: {
          status: "tls-failed",
          latencyMs: 2,
          error: "unable to verify",
          code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
        },
      }),
    ).toEqual(["critical:tls-failed"]);
    expect(
      codes({
        ...healthy,
        probe: {
          status: "tls-failed",
          latencyMs: 2,
          error: "Hostname/IP does not match",
          code: "ERR_TLS_CERT_ALTNAME_INVALID",
        },
      }),
    ).toEqual(["critical:san-mismatch"]);
    expect(
      codes({
        ...healthy,
        probe: {
          status: "ok",
          latencyMs: 2,
          served: { subject: "", notAfter: "", signatureAlgorithm: "sha1WithRSAEncryption" },
        },
      }),
    ).toEqual(["high:insecure-sha1"]);
  });

  it("warns at 30 days of CA validity and is critical at 7", () => {
    expect(codes({ ...healthy, ca: { empty: false, daysLeft: 20 } })).toEqual([
      "medium:ca-expiring",
    ]);
    expect(codes({ ...healthy, ca: { empty: false, daysLeft: 5 } })).toEqual([
      "critical:ca-expiring",
    ]);
    expect(codes({ ...healthy, ca: { empty: false, daysLeft: -1 } })).toEqual([
      "critical:ca-expired",
    ]);
  });

  it("notes that same-named hooks share metrics", () => {
    expect(codes({ ...healthy, sameName: 2 })).toEqual(["info:ambiguous-metrics"]);
  });
});
