import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { canonical, comparablesOf, textDigest } from "./comparable";
import { fleetDrift, onlyDiffering } from "./drift";
import { criticalNamespaces, summarizeCluster } from "./summary";

// The test CA lint's backend tests use (valid 2026-11-22 to 2027-11-22).
const CA = /"(-----BEGIN CERTIFICATE-----[^"]+)"/
  .exec(readFileSync(path.join(import.meta.dirname, "../lint/lint-backend.test.ts"), "utf8"))?.[1]
  ?.replace(/\\n/g, "\n");

function vwc(name: string, hook: Record<string, unknown> = {}): unknown {
  return {
    metadata: { name },
    webhooks: [
      {
        name: `${name}.example.com`,
        clientConfig: { service: { namespace: "hooks", name: "backend", port: 443 } },
        rules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
        ],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        ...hook,
      },
    ],
  };
}

const snap = (configs: unknown[], extra: Partial<AdmissionSnapshot> = {}): AdmissionSnapshot =>
  ({ validatingWebhookConfigurations: configs, ...extra }) as AdmissionSnapshot;

describe("comparables", () => {
  it("fills in the v1 defaults, so an unset field and its default compare equal", () => {
    const [unset] = comparablesOf(snap([vwc("a")]));
    const [explicit] = comparablesOf(
      snap([vwc("a", { failurePolicy: "Fail", timeoutSeconds: 10, namespaceSelector: {} })]),
    );
    expect(unset?.fields).toEqual(explicit?.fields);
    expect(unset?.fields["a.example.com.failurePolicy"]).toBe('"Fail"');
  });

  it("compares a caBundle by digest, never by its text", () => {
    const [c] = comparablesOf(
      snap([vwc("a", { clientConfig: { caBundle: "QUJD", url: "https://x" } })]),
    );
    expect(c?.fields["a.example.com.caBundle"]).toBe(`digest ${textDigest("QUJD")}`);
    expect(textDigest("QUJD")).not.toBe(textDigest("QUJE"));
    expect(canonical({ b: 1, a: [2, { d: 1, c: 2 }] })).toBe('{"a":[2,{"c":2,"d":1}],"b":1}');
  });
});

describe("fleetDrift", () => {
  const a = comparablesOf(snap([vwc("shared"), vwc("only-a")]));
  const b = comparablesOf(snap([vwc("shared", { failurePolicy: "Ignore", timeoutSeconds: 3 })]));
  const same = comparablesOf(snap([vwc("shared"), vwc("only-a")]));

  it("marks the fields that differ and the clusters that lack an object", () => {
    const drift = fleetDrift([
      { cluster: "a", objects: a },
      { cluster: "b", objects: b },
      { cluster: "down", objects: undefined },
    ]);
    const shared = drift.find((d) => d.name === "shared");
    expect(shared?.present).toEqual(["a", "b"]);
    expect(shared?.differs).toBe(true);
    expect(shared?.fields.filter((f) => f.differs).map((f) => f.field)).toEqual([
      "shared.example.com.failurePolicy",
      "shared.example.com.timeoutSeconds",
    ]);
    const onlyA = drift.find((d) => d.name === "only-a");
    // An unreadable cluster is never counted as lacking the object.
    expect(onlyA?.missing).toEqual(["b"]);
    expect(onlyDiffering(drift).find((d) => d.name === "shared")?.fields).toHaveLength(2);
  });

  it("finds nothing that differs across identical clusters", () => {
    const drift = fleetDrift([
      { cluster: "a", objects: a },
      { cluster: "c", objects: same },
    ]);
    expect(drift).toHaveLength(2);
    expect(onlyDiffering(drift)).toEqual([]);
  });
});

describe("summarizeCluster", () => {
  it("names runlevel 0–1 namespaces and kube-system as critical", () => {
    expect(
      criticalNamespaces({
        "kube-system": {},
        boot: { runlevel: "0" },
        net: { runlevel: "1" },
        apps: { runlevel: "2" },
      }),
    ).toEqual(["boot", "kube-system", "net"]);
  });

  it("counts hooks, fail-closed hooks over critical namespaces, expiring CAs and dead backends", () => {
    const caBundle = Buffer.from(CA ?? "").toString("base64");
    const s = snap(
      [
        vwc("closed", {
          failurePolicy: "Fail",
          clientConfig: { caBundle, service: { namespace: "hooks", name: "backend" } },
        }),
        vwc("open", { failurePolicy: "Ignore" }),
        vwc("exempt", {
          namespaceSelector: {
            matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
          },
        }),
      ],
      {
        namespaces: {
          "kube-system": { "kubernetes.io/metadata.name": "kube-system", runlevel: "0" },
          apps: { "kubernetes.io/metadata.name": "apps" },
        },
      },
    );
    const { summary, comparables } = summarizeCluster({
      snapshot: s,
      services: [
        {
          metadata: { namespace: "hooks", name: "backend" },
          spec: { clusterIP: "10.0.0.1", ports: [{ name: "https", port: 443 }] },
        },
      ],
      endpointSlices: [],
      now: new Date("2027-11-10T00:00:00Z"),
    });
    expect(summary.counts.validatingWebhookConfigurations).toBe(3);
    expect(summary.counts.webhooks).toBe(3);
    expect(summary.failClosedCritical.map((h) => [h.configuration, h.namespaces])).toEqual([
      ["closed", ["kube-system"]],
    ]);
    expect(summary.caExpiring).toEqual([
      {
        kind: "ValidatingWebhookConfiguration",
        configuration: "closed",
        hook: "closed.example.com",
        daysLeft: 12,
      },
    ]);
    expect(summary.backendsNotReady.map((b) => [b.configuration, b.code])).toEqual([
      ["closed", "no-ready-endpoints"],
      ["open", "no-ready-endpoints"],
      ["exempt", "no-ready-endpoints"],
    ]);
    expect(summary.lint.critical).toBeGreaterThan(0);
    expect(comparables).toHaveLength(3);
  });

  it("names an engine's version from the labels of the objects it owns", () => {
    const s = snap([
      {
        ...(vwc("gatekeeper-validating-webhook-configuration") as object),
        metadata: {
          name: "gatekeeper-validating-webhook-configuration",
          labels: { "gatekeeper.sh/system": "yes", "app.kubernetes.io/version": "3.18.0" },
        },
      },
    ]);
    const { summary, comparables } = summarizeCluster({ snapshot: s, now: new Date() });
    expect(summary.engines).toEqual([{ engine: "gatekeeper", version: "3.18.0" }]);
    expect(comparables[0]?.fields["engine"]).toBe("gatekeeper 3.18.0");
  });
});

describe("the minor a cluster's summary assumes", () => {
  const namespaces = {
    "kube-system": { "kubernetes.io/metadata.name": "kube-system" },
  };
  const s = snap(
    [
      vwc("everything", {
        failurePolicy: "Ignore",
        rules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }],
      }),
    ],
    { namespaces },
  );
  const summary = (gitVersion?: string) =>
    summarizeCluster({
      snapshot: s,
      ...(gitVersion ? { version: { gitVersion } } : {}),
      now: new Date(),
    }).summary;

  it("is the cluster's from its /version, the newest without one", () => {
    expect(summary("v1.36.3").kubernetes).toEqual({ minor: "1.36", source: "cluster" });
    expect(summary("v1.35.4").kubernetes).toEqual({ minor: "1.35", source: "cluster" });
    expect(summary().kubernetes).toEqual({ minor: "1.37", source: "default" });
  });

  it("is what its lint is judged with", () => {
    // A hook on every resource is called for TokenReviews before 1.37 (L4, high); not from 1.37.
    expect(summary("v1.36.3").lint.high).toBe(summary("v1.37.2").lint.high + 1);
    expect(summary("v1.35.4").lint.high).toBe(summary().lint.high + 1);
  });
});
