import { describe, expect, it } from "vitest";
import { foldAdmissionMetrics } from "@/lib/admission/health/metrics";
import {
  inferOutsideApi,
  knownNamesOf,
  outsideApiSentence,
  type DecisionSighting,
  type MetricsScrape,
} from "./infer";

const hookSeries = (name: string, type: string, calls: number, extra = "") =>
  [
    `apiserver_admission_webhook_request_total{code="200",name="${name}",operation="CREATE",rejected="false",type="${type}"} ${calls}`,
    extra,
  ].join("\n");

const manifestInfo = (plugin: string, hash = "sha256:abc") =>
  [
    `apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:id",plugin="${plugin}",status="success"} 1`,
    `apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash="sha256:id",plugin="${plugin}",status="success"} 1000`,
    `apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="sha256:id",hash="${hash}",plugin="${plugin}"} 1`,
  ].join("\n");

const scrape = (at: number, ...lines: string[]): MetricsScrape => ({
  at,
  metrics: foldAdmissionMetrics(lines.join("\n")),
});

const api = knownNamesOf({
  validatingWebhookConfigurations: [
    { metadata: { name: "api-config" }, webhooks: [{ name: "api.example.com" }] },
  ],
  mutatingWebhookConfigurations: [
    { metadata: { name: "api-mutator" }, webhooks: [{ name: "shared.example.com" }] },
  ],
  validatingAdmissionPolicies: [{ metadata: { name: "api-policy" } }],
});

const decision = (d: Partial<DecisionSighting> & Pick<DecisionSighting, "kind" | "hook">) => ({
  configuration: "",
  calls: 1,
  errors: 0,
  first: 5_000,
  last: 5_000,
  ...d,
});

describe("inferOutsideApi", () => {
  it("reports nothing on an apiserver without manifests", () => {
    const r = inferOutsideApi({
      scrapes: [scrape(1, hookSeries("api.example.com", "validating", 3))],
      decisions: [],
      api,
    });
    expect(r).toEqual({ plugins: [], hooks: [] });
    expect(outsideApiSentence(r)).toBe("No hooks or policies are configured outside the API.");
  });

  it("names the plugins with a manifest directory, in the order of admission", () => {
    const r = inferOutsideApi({
      scrapes: [
        scrape(
          1,
          manifestInfo("ValidatingAdmissionWebhook", "sha256:v"),
          manifestInfo("MutatingAdmissionPolicy", "sha256:m"),
        ),
      ],
      decisions: [],
      api,
    });
    expect(r.plugins).toEqual([
      {
        plugin: "MutatingAdmissionPolicy",
        hashes: ["sha256:m"],
        loads: 1,
        failedReloads: 0,
        lastLoad: 1_000_000,
      },
      {
        plugin: "ValidatingAdmissionWebhook",
        hashes: ["sha256:v"],
        loads: 1,
        failedReloads: 0,
        lastLoad: 1_000_000,
      },
    ]);
    expect(r.hooks).toEqual([]);
    expect(outsideApiSentence(r)).toMatch(/loads manifests for MutatingAdmissionPolicy/);
  });

  it("takes a webhook name no API object has as static only where its plugin loads manifests", () => {
    const lines = [
      hookSeries("api.example.com", "validating", 3),
      hookSeries("unknown.example.com", "validating", 4),
      hookSeries("gone.example.com", "admit", 2),
    ];
    const without = inferOutsideApi({ scrapes: [scrape(1, ...lines)], decisions: [], api });
    expect(without.hooks).toEqual([]);
    const r = inferOutsideApi({
      scrapes: [scrape(1, ...lines, manifestInfo("ValidatingAdmissionWebhook"))],
      decisions: [],
      api,
    });
    expect(r.hooks).toEqual([
      {
        plugin: "ValidatingAdmissionWebhook",
        name: "unknown.example.com",
        parents: [],
        evidence: "unknown-name",
        seenIn: ["metrics"],
        firstSeen: 1,
        lastSeen: 1,
        calls: 4,
        errors: 0,
      },
    ]);
    expect(outsideApiSentence(r)).toBe("1 hook or policy is configured outside the API.");
  });

  it("tells when a series appeared and last grew across the window", () => {
    const info = manifestInfo("ValidatingAdmissionWebhook");
    const r = inferOutsideApi({
      scrapes: [
        scrape(10, info),
        scrape(20, info, hookSeries("s.example.com", "validating", 0)),
        scrape(30, info, hookSeries("s.example.com", "validating", 2)),
        scrape(40, info, hookSeries("s.example.com", "validating", 2)),
      ],
      decisions: [],
      api,
    });
    expect(r.hooks[0]).toMatchObject({ firstSeen: 20, lastSeen: 30, calls: 2 });
  });

  it("counts failed calls: fail-closed errors and fail-open ones", () => {
    const r = inferOutsideApi({
      scrapes: [
        scrape(
          1,
          manifestInfo("ValidatingAdmissionWebhook"),
          hookSeries(
            "s.example.com",
            "validating",
            5,
            [
              'apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="s.example.com",operation="CREATE",rejection_code="500",type="validating"} 2',
              'apiserver_admission_webhook_rejection_count{error_type="no_error",name="s.example.com",operation="CREATE",rejection_code="403",type="validating"} 1',
              'apiserver_admission_webhook_fail_open_count{name="s.example.com",type="validating"} 1',
            ].join("\n"),
          ),
        ),
      ],
      decisions: [],
      api,
    });
    expect(r.hooks[0]).toMatchObject({ calls: 5, errors: 3 });
  });

  it("names a static policy from its metrics by the reserved suffix, with its bindings", () => {
    const r = inferOutsideApi({
      scrapes: [
        scrape(
          7,
          'apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="deny.static.k8s.io",policy_binding="deny-binding.static.k8s.io"} 3',
          'apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="api-policy",policy_binding="b"} 3',
          'apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="deleted-policy",policy_binding="b"} 3',
        ),
      ],
      decisions: [],
      api,
    });
    expect(r.hooks).toEqual([
      {
        plugin: "ValidatingAdmissionPolicy",
        name: "deny.static.k8s.io",
        parents: ["deny-binding.static.k8s.io"],
        evidence: "reserved-name",
        seenIn: ["metrics"],
        firstSeen: 7,
        lastSeen: 7,
        calls: 3,
        errors: 0,
      },
    ]);
  });

  it("reads a mutating webhook's static configuration from audit annotations, even under an API webhook's name", () => {
    const r = inferOutsideApi({
      scrapes: [],
      decisions: [
        decision({
          kind: "mutating-webhook",
          hook: "shared.example.com",
          configuration: "platform.static.k8s.io",
          calls: 4,
          errors: 1,
          first: 100,
          last: 900,
        }),
        decision({
          kind: "mutating-webhook",
          hook: "shared.example.com",
          configuration: "api-mutator",
        }),
      ],
      api,
    });
    expect(r.hooks).toEqual([
      {
        plugin: "MutatingAdmissionWebhook",
        name: "shared.example.com",
        parents: ["platform.static.k8s.io"],
        evidence: "reserved-name",
        seenIn: ["audit"],
        firstSeen: 100,
        lastSeen: 900,
        calls: 4,
        errors: 1,
      },
    ]);
  });

  it("joins a hook's metrics and decisions: metrics count the calls, decisions widen the times", () => {
    const r = inferOutsideApi({
      scrapes: [
        scrape(
          2_000,
          manifestInfo("ValidatingAdmissionWebhook"),
          hookSeries("s.example.com", "validating", 9),
        ),
      ],
      decisions: [
        decision({ kind: "webhook", hook: "s.example.com", first: 1_000, last: 3_000, calls: 2 }),
        decision({ kind: "webhook", hook: "api.example.com" }),
      ],
      api,
    });
    expect(r.hooks).toEqual([
      expect.objectContaining({
        plugin: "ValidatingAdmissionWebhook",
        name: "s.example.com",
        seenIn: ["metrics", "audit"],
        firstSeen: 1_000,
        lastSeen: 3_000,
        calls: 9,
      }),
    ]);
  });

  it("leaves out what the manifest files read already show", () => {
    const files = knownNamesOf({
      validatingAdmissionPolicies: [{ metadata: { name: "deny.static.k8s.io" } }],
    });
    const scrapes = [
      scrape(
        1,
        'apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="deny.static.k8s.io",policy_binding="b.static.k8s.io"} 1',
        'apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="other.static.k8s.io",policy_binding="o.static.k8s.io"} 1',
      ),
    ];
    const r = inferOutsideApi({ scrapes, decisions: [], api, files });
    expect(r.hooks.map((h) => h.name)).toEqual(["other.static.k8s.io"]);
  });

  it("ignores PodSecurity and decisions without a name", () => {
    const r = inferOutsideApi({
      scrapes: [],
      decisions: [
        decision({ kind: "pod-security", hook: "PodSecurity" }),
        decision({ kind: "validating-policy", hook: "" }),
      ],
      api,
    });
    expect(r.hooks).toEqual([]);
  });

  it("sorts by plugin in the order of admission, then by name", () => {
    const r = inferOutsideApi({
      scrapes: [],
      decisions: [
        decision({ kind: "validating-policy", hook: "b.static.k8s.io" }),
        decision({ kind: "validating-policy", hook: "a.static.k8s.io" }),
        decision({ kind: "mutating-policy", hook: "z.static.k8s.io" }),
      ],
      api,
    });
    expect(r.hooks.map((h) => `${h.plugin}/${h.name}`)).toEqual([
      "MutatingAdmissionPolicy/z.static.k8s.io",
      "ValidatingAdmissionPolicy/a.static.k8s.io",
      "ValidatingAdmissionPolicy/b.static.k8s.io",
    ]);
    expect(outsideApiSentence(r)).toBe("3 hooks or policies are configured outside the API.");
  });
});
