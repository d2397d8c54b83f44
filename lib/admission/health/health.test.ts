import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assessHook, assessPolicy, bucketText, caFactsOf, type HookHealthInput } from "./health";
import {
  foldAdmissionMetrics,
  policyDelta,
  policyKey,
  type PolicyKind,
  type WebhookMetrics,
} from "./metrics";

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

  it("flags a Service without the hook's port, a headless one, and does not ask an ExternalName Service for endpoints", () => {
    const service = {
      kind: "service" as const,
      serviceExists: true,
      readyEndpoints: 2,
      port: 444,
      portServed: true,
    };
    const unreachable = {
      ...healthy,
      probe: { status: "unreachable-from-here" as const, error: "ENOTFOUND" },
    };
    const on = (backend: HookHealthInput["backend"], failurePolicy: "Fail" | "Ignore" = "Fail") =>
      codes({ ...unreachable, failurePolicy, backend }).filter(
        (c) => c !== "info:not-reachable-from-dashboard",
      );
    expect(on(service)).toEqual([]);
    // ResolveCluster and ResolveEndpoint both refuse: no service port 444 found.
    expect(on({ ...service, portServed: false })).toEqual(["critical:service-port-missing"]);
    expect(on({ ...service, portServed: false }, "Ignore")).toEqual(["high:service-port-missing"]);
    expect(on({ ...service, headless: true })).toEqual(["high:headless-service"]);
    // ExternalName Services have no endpoints by design.
    const external = assessHook({
      ...unreachable,
      backend: {
        ...service,
        readyEndpoints: 0,
        portServed: false,
        serviceType: "ExternalName",
        externalName: "hooks.example.com",
      },
    });
    expect(external.reasons.map((r) => `${r.severity}:${r.code}`)).toEqual([
      "medium:external-name-service",
      "info:not-reachable-from-dashboard",
    ]);
    expect(external.reasons[0]?.message).toContain("hooks.example.com:444");
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

  it("judges a caBundle by the certificates that can anchor a chain now, as Go does", () => {
    const now = Date.parse("2026-06-01T00:00:00Z");
    const old = { notBefore: "2020-01-01T00:00:00Z", notAfter: "2020-02-01T00:00:00Z" };
    const current = { notBefore: "2026-01-01T00:00:00Z", notAfter: "2027-01-01T00:00:00Z" };
    const future = { notBefore: "2040-01-01T00:00:00Z", notAfter: "2041-01-01T00:00:00Z" };
    const soon = { notBefore: "2026-06-11T00:00:00Z", notAfter: "2027-06-11T00:00:00Z" };
    const ca = (...c: Array<typeof old>) => caFactsOf(c, undefined, now);

    // A CA being rotated: the expired one beside the valid one takes nothing away.
    const rotated = ca(old, current);
    expect(rotated.daysLeft).toBe(214);
    expect(codes({ ...healthy, ca: rotated })).toEqual(["info:ca-unusable-certificates"]);
    // Only expired certificates: the latest one's expiry.
    expect(codes({ ...healthy, ca: ca(old) })).toEqual(["critical:ca-expired"]);
    // Not valid yet: nothing anchors a chain until then.
    expect(ca(future, soon).notYetValidInDays).toBe(10);
    expect(codes({ ...healthy, ca: ca(future) })).toEqual(["critical:ca-not-yet-valid"]);
    expect(codes({ ...healthy, ca: ca(old, future) })).toEqual(["critical:ca-not-yet-valid"]);
    expect(codes({ ...healthy, ca: ca(current, future) })).toEqual([
      "info:ca-unusable-certificates",
    ]);
    expect(codes({ ...healthy, ca: ca(current) })).toEqual([]);
  });

  it("notes that same-named hooks share metrics", () => {
    expect(codes({ ...healthy, sameName: 2 })).toEqual(["info:ambiguous-metrics"]);
  });
});

describe("assessPolicy", () => {
  // Real scrapes of the local v1.37.2 apiserver (see metrics.test.ts).
  const earlier = foldAdmissionMetrics(
    readFileSync(path.join(import.meta.dirname, "testdata", "metrics-1.37-policies.txt"), "utf8"),
  );
  const later = foldAdmissionMetrics(
    readFileSync(
      path.join(import.meta.dirname, "testdata", "metrics-1.37-policies-later.txt"),
      "utf8",
    ),
  );
  const MAP = "MutatingAdmissionPolicy" as const;
  const series = (kind: PolicyKind, policy: string) => {
    const k = policyKey(kind, policy, `${policy}-b`);
    const total = later.policies.get(k)!;
    return { total, window: policyDelta(total, earlier.policies.get(k)) };
  };

  it("flags a mutating policy whose expression fails, saying what its failure policy did", () => {
    const ignore = assessPolicy({
      kind: MAP,
      failurePolicy: "Ignore",
      ...series(MAP, "fx-cel-error"),
    });
    expect(ignore.severity).toBe("high");
    expect(ignore.reasons.map((r) => r.code)).toEqual(["errors"]);
    expect(ignore.reasons[0]!.message).toBe(
      "2 mutation expression evaluations failed in the window (100 %) — invalid_error 2: failurePolicy Ignore let those requests through unmutated",
    );
    const fail = assessPolicy({
      kind: MAP,
      failurePolicy: "Fail",
      ...series(MAP, "fx-fail-error"),
    });
    expect(fail.reasons[0]!.message).toContain(
      "1 mutation expression evaluations failed in the window",
    );
    expect(fail.reasons[0]!.message).toContain("failurePolicy Fail refused those requests");
  });

  it("finds nothing wrong with a mutating policy that applies cleanly and fast", () => {
    const ok = assessPolicy({ kind: MAP, failurePolicy: "Fail", ...series(MAP, "fx-same") });
    expect(ok).toMatchObject({ severity: "ok", reasons: [] });
    expect(ok.latency).toMatchObject({ over: "window", calls: 2 });
    expect(ok.latency.p99).toBeLessThan(0.01);
  });

  it("counts a validating denial as a decision and an ignored error as an error", () => {
    const deny = assessPolicy({
      kind: "ValidatingAdmissionPolicy",
      failurePolicy: "Fail",
      total: later.policies.get(policyKey("ValidatingAdmissionPolicy", "fx-same", "fx-same-b"))!,
    });
    expect(deny.reasons.map((r) => r.code)).not.toContain("errors");
    const ignored = assessPolicy({
      kind: "ValidatingAdmissionPolicy",
      failurePolicy: "Ignore",
      ...series("ValidatingAdmissionPolicy", "fx-vap-ignore"),
    });
    expect(ignored.reasons[0]!.message).toBe(
      "2 validation expression evaluations failed in the window — invalid_error 2: failurePolicy Ignore let those requests through unchecked",
    );
  });

  it("notes old errors once the window is clean, and uses the window's latency", () => {
    const k = policyKey(MAP, "fx-cel-error", "fx-cel-error-b");
    const total = later.policies.get(k)!;
    const clean = assessPolicy({
      kind: MAP,
      failurePolicy: "Ignore",
      total,
      window: policyDelta(total, total),
    });
    expect(clean.severity).toBe("info");
    expect(clean.reasons.map((r) => r.code)).toEqual(["errors-since-start"]);
  });

  it("flags expressions past 100 ms at p99, and highly past the last bucket of 1 s", () => {
    // The first mutation this apiserver evaluated took 0.26 s (warming up): 1 of 12 evaluations.
    const label = later.policies.get(policyKey(MAP, "fx-add-label", "fx-add-label-b"))!;
    const slow = assessPolicy({ kind: MAP, failurePolicy: "Fail", total: label });
    expect(slow.severity).toBe("medium");
    expect(slow.reasons[0]!.code).toBe("slow");
    expect(slow.reasons[0]!.message).toBe(
      "p99 mutation expression time is between 100 ms and 1 s since the apiserver started; expressions usually take well under 1 ms",
    );
    expect(slow.latencyBuckets).toEqual({
      p50: { lower: 5e-7, upper: 0.001 },
      p90: { lower: 5e-7, upper: 0.001 },
      p99: { lower: 0.1, upper: 1 },
    });
    expect(bucketText(slow.latencyBuckets.p50)).toBe("≤ 1 ms");
    const pastLast = assessPolicy({
      kind: MAP,
      failurePolicy: "Fail",
      total: { ...label, buckets: label.buckets.map(([b]) => [b, b === Infinity ? 1 : 0]) },
    });
    expect(pastLast.severity).toBe("high");
    expect(pastLast.reasons[0]!.message).toContain(
      "is over 1 s (past the apiserver's last bucket)",
    );
    expect(bucketText(pastLast.latencyBuckets.p99)).toBe("> 1 s");
  });
});
