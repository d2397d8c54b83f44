import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  foldAdmissionMetrics,
  histogramQuantile,
  parseAdmissionSamples,
  policyDelta,
  policyKey,
  quantileBucket,
  webhookDelta,
  webhookKey,
} from "./metrics";

const fixture = (name: string) =>
  readFileSync(path.join(import.meta.dirname, "testdata", name), "utf8");

describe("foldAdmissionMetrics", () => {
  // Recorded from the local v1.37.2 apiserver after the harness called five hooks.
  it("folds a 1.37 scrape per hook", () => {
    const m = foldAdmissionMetrics(fixture("metrics-1.37.txt"));
    expect(m.webhooks.size).toBe(5);
    const slowFail = m.webhooks.get(webhookKey("v3-slow-fail.example.com", "validating"))!;
    expect(slowFail.calls).toBe(1);
    expect(slowFail.rejected).toBe(1);
    expect(slowFail.byCode).toEqual({ "503": 1 });
    expect(slowFail.rejections).toEqual({ calling_webhook_error: 1 });
    const slowIgnore = m.webhooks.get(webhookKey("v2-slow-ignore.example.com", "validating"))!;
    expect(slowIgnore.failOpen).toBe(1);
    expect(slowIgnore.rejected).toBe(0);
    const deny = m.webhooks.get(webhookKey("v1-deny.example.com", "validating"))!;
    expect(deny.rejections).toEqual({ no_error: 1 });
    const patch = m.webhooks.get(webhookKey("patch.example.com", "admit"))!;
    expect(patch.durationCount).toBe(1);
    expect(patch.buckets.map((b) => b[0])).toEqual([
      0.005,
      0.025,
      0.1,
      0.5,
      1,
      2.5,
      10,
      25,
      Infinity,
    ]);
    expect(m.labelNames["apiserver_admission_webhook_request_total"]).toEqual([
      "code",
      "name",
      "operation",
      "rejected",
      "type",
    ]);
  });

  // Older apiservers report only the latency histogram and rejection counts.
  it("takes calls from the histogram when request_total is not reported", () => {
    const m = foldAdmissionMetrics(fixture("metrics-1.21.txt"));
    expect(m.labelNames["apiserver_admission_webhook_request_total"]).toBeUndefined();
    const slowFail = m.webhooks.get(webhookKey("v3-slow-fail.example.com", "validating"))!;
    expect(slowFail.calls).toBe(1);
    expect(slowFail.rejected).toBe(1);
    expect(slowFail.failOpen).toBe(0);
  });

  it("reads escaped label values and extra labels, and skips other metrics unread", () => {
    const text = [
      'apiserver_request_total{code="200"} 5',
      'apiserver_admission_webhook_request_total{name="a\\"b.example.com",type="admit",code="200",rejected="false",operation="CREATE",new_label="x"} 3',
      'apiserver_admission_webhook_request_total{name="a\\"b.example.com",type="admit",code="200",rejected="false",operation="UPDATE"} 2',
      "apiserver_admission_webhook_request_total{broken 1",
      'apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="no_error",policy="p",policy_binding="b"} 4',
    ].join("\n");
    const m = foldAdmissionMetrics(text);
    expect(m.webhooks.get(webhookKey('a"b.example.com', "admit"))!.calls).toBe(5);
    expect(m.policies.get(policyKey("ValidatingAdmissionPolicy", "p", "b"))).toMatchObject({
      checks: 4,
      byAction: { deny: 4 },
    });
    expect(m.labelNames["apiserver_admission_webhook_request_total"]).toContain("new_label");
  });

  it("reads several escapes in one value and across labels", () => {
    const [sample] = parseAdmissionSamples(
      'apiserver_admission_webhook_fail_open_count{name="x\\\\y\\"z\\nw",type="a\\"",other="plain"} 2',
    );
    expect(sample?.labels).toEqual({ name: 'x\\y"z\nw', type: 'a"', other: "plain" });
    expect(sample?.value).toBe(2);
  });

  it("parses hostile input in linear time", { timeout: 2_000 }, () => {
    const hostile = `apiserver_admission_webhook_request_total{${'a="'.repeat(200_000)}`;
    expect(parseAdmissionSamples(hostile)).toEqual([]);
  });
});

describe("histogramQuantile", () => {
  it("interpolates inside the bucket the rank falls in", () => {
    const b: Array<[number, number]> = [
      [0.1, 50],
      [0.5, 90],
      [1, 100],
      [Infinity, 100],
    ];
    expect(histogramQuantile(0.5, b)).toBeCloseTo(0.1);
    expect(histogramQuantile(0.9, b)).toBeCloseTo(0.5);
    expect(histogramQuantile(0.99, b)).toBeCloseTo(0.95);
    expect(histogramQuantile(0.25, b)).toBeCloseTo(0.05);
  });

  it("answers the highest finite bound for ranks in +Inf, nothing without observations", () => {
    expect(
      histogramQuantile(0.99, [
        [25, 1],
        [Infinity, 10],
      ]),
    ).toBe(25);
    expect(
      histogramQuantile(0.5, [
        [1, 0],
        [Infinity, 0],
      ]),
    ).toBeUndefined();
  });
});

describe("quantileBucket", () => {
  it("names the bucket a quantile falls in, +Inf past the last bound", () => {
    const buckets: Array<[number, number]> = [
      [5e-7, 0],
      [0.001, 8],
      [0.01, 9],
      [0.1, 9],
      [1, 10],
      [Infinity, 11],
    ];
    expect(quantileBucket(0.5, buckets)).toEqual({ lower: 5e-7, upper: 0.001 });
    expect(quantileBucket(0.8, buckets)).toEqual({ lower: 0.001, upper: 0.01 });
    expect(quantileBucket(0.9, buckets)).toEqual({ lower: 0.1, upper: 1 });
    expect(quantileBucket(0.99, buckets)).toEqual({ lower: 1, upper: Infinity });
    expect(quantileBucket(0.5, [[Infinity, 0]])).toBeUndefined();
  });
});

describe("webhookDelta", () => {
  it("subtracts the earlier scrape, and keeps the later one after a counter reset", () => {
    const m = foldAdmissionMetrics(fixture("metrics-1.37.txt"));
    const w = m.webhooks.get(webhookKey("v3-slow-fail.example.com", "validating"))!;
    const doubled = {
      ...w,
      calls: 3,
      rejected: 3,
      durationCount: 3,
      rejections: { calling_webhook_error: 3 },
    };
    expect(webhookDelta(doubled, w)).toMatchObject({
      calls: 2,
      rejected: 2,
      rejections: { calling_webhook_error: 2 },
    });
    expect(webhookDelta(w, doubled)).toBe(w);
    expect(webhookDelta(w, undefined)).toBe(w);
  });
});

describe("admission policy metrics", () => {
  // Recorded from the local v1.37.2 apiserver: mutating policies fx-add-label (adds a label),
  // fx-cel-error (a CEL runtime error, failurePolicy Ignore), fx-fail-error (the same error,
  // failurePolicy Fail, bound to another namespace) and fx-same, beside validating policies
  // fx-same (denied one request) and fx-vap-ignore (a runtime error, failurePolicy Ignore).
  const MAP = "MutatingAdmissionPolicy" as const;
  const VAP = "ValidatingAdmissionPolicy" as const;

  it("folds mutating policies per binding, apart from a validating policy of the same name", () => {
    const m = foldAdmissionMetrics(fixture("metrics-1.37-policies.txt"));
    expect(m.labelNames["apiserver_mutating_admission_policy_check_total"]).toEqual([
      "error_type",
      "policy",
      "policy_binding",
    ]);
    const mutatingSame = m.policies.get(policyKey(MAP, "fx-same", "fx-same-b"))!;
    const validatingSame = m.policies.get(policyKey(VAP, "fx-same", "fx-same-b"))!;
    expect(mutatingSame).toMatchObject({
      kind: MAP,
      checks: 10,
      byAction: {},
      errors: { no_error: 10 },
      evaluationErrors: 0,
      durationCount: 10,
    });
    expect(validatingSame).toMatchObject({
      kind: VAP,
      checks: 1,
      byAction: { deny: 1 },
      // The apiserver labels a plain denial invalid_error: not an evaluation error.
      errors: { invalid_error: 1 },
      evaluationErrors: 0,
    });
    expect(m.policies.get(policyKey(MAP, "fx-cel-error", "fx-cel-error-b"))).toMatchObject({
      checks: 10,
      errors: { invalid_error: 10 },
      evaluationErrors: 10,
    });
    expect(m.policies.get(policyKey(MAP, "fx-fail-error", "fx-fail-error-b"))).toMatchObject({
      checks: 1,
      evaluationErrors: 1,
    });
    // An error failurePolicy Ignore let through is labelled with action "allow".
    expect(m.policies.get(policyKey(VAP, "fx-vap-ignore", "fx-vap-ignore-b"))).toMatchObject({
      checks: 4,
      byAction: { allow: 4 },
      evaluationErrors: 4,
    });
    // The mutating buckets as the apiserver declares them, +Inf last.
    const label = m.policies.get(policyKey(MAP, "fx-add-label", "fx-add-label-b"))!;
    expect(label.buckets.map((b) => b[0])).toEqual([5e-7, 0.001, 0.01, 0.1, 1, Infinity]);
    expect(label.buckets.at(-1)![1]).toBe(label.durationCount);
    expect(label.durationSum).toBeGreaterThan(0);
    expect(m.policies.size).toBe(6);
  });

  it("subtracts an earlier scrape per binding, and keeps the later one after a reset", () => {
    const earlier = foldAdmissionMetrics(fixture("metrics-1.37-policies.txt"));
    const later = foldAdmissionMetrics(fixture("metrics-1.37-policies-later.txt"));
    const k = policyKey(MAP, "fx-cel-error", "fx-cel-error-b");
    const d = policyDelta(later.policies.get(k)!, earlier.policies.get(k));
    expect(d).toMatchObject({ checks: 2, errors: { invalid_error: 2 }, evaluationErrors: 2 });
    expect(d.durationCount).toBe(2);
    expect(d.buckets.at(-1)![1]).toBe(2);
    const fail = policyKey(MAP, "fx-fail-error", "fx-fail-error-b");
    expect(policyDelta(later.policies.get(fail)!, earlier.policies.get(fail)).checks).toBe(1);
    // A restarted apiserver counts from zero again: the later scrape is the window.
    expect(policyDelta(earlier.policies.get(k)!, later.policies.get(k))).toBe(
      earlier.policies.get(k),
    );
  });
});

describe("manifest admission configuration series", () => {
  // The three series of k8s.io/apiserver v0.37.2 pkg/admission/plugin/manifest/metrics.
  const text = [
    "# HELP apiserver_manifest_admission_config_controller_automatic_reloads_total [ALPHA] Total number of automatic reloads",
    "# TYPE apiserver_manifest_admission_config_controller_automatic_reloads_total counter",
    'apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:aa",plugin="ValidatingAdmissionWebhook",status="success"} 2',
    'apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:aa",plugin="ValidatingAdmissionWebhook",status="failure"} 1',
    'apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:aa",plugin="MutatingAdmissionPolicy",status="success"} 1',
    'apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash="sha256:aa",plugin="ValidatingAdmissionWebhook",status="success"} 1.7e+09',
    'apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash="sha256:aa",plugin="ValidatingAdmissionWebhook",status="failure"} 1.7000001e+09',
    'apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="sha256:aa",hash="sha256:1234",plugin="ValidatingAdmissionWebhook"} 1',
    'apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="sha256:aa",hash="sha256:5678",plugin="MutatingAdmissionPolicy"} 1',
  ].join("\n");

  it("reads loads, failed reloads, their times and the hash in force per plugin", () => {
    const m = foldAdmissionMetrics(text);
    expect([...m.manifests.keys()].sort()).toEqual([
      "MutatingAdmissionPolicy",
      "ValidatingAdmissionWebhook",
    ]);
    expect(m.manifests.get("ValidatingAdmissionWebhook")).toEqual({
      plugin: "ValidatingAdmissionWebhook",
      reloads: { success: 2, failure: 1 },
      lastReload: { success: 1.7e9, failure: 1.7000001e9 },
      hashes: { "sha256:aa": "sha256:1234" },
    });
    expect(m.manifests.get("MutatingAdmissionPolicy")?.hashes).toEqual({
      "sha256:aa": "sha256:5678",
    });
    expect(m.webhooks.size).toBe(0);
  });

  it("is empty on an apiserver without the series", () => {
    expect(foldAdmissionMetrics(fixture("metrics-1.37.txt")).manifests.size).toBe(0);
  });
});
