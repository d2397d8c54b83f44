import { describe, expect, it } from "vitest";
import { hook } from "@/lib/admission/model/test-helpers";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import type { LintStateData } from "@/lib/api/webhooks";
import { lintConfigurations } from "./findings";
import { lintMinor } from "./lint-minor";

describe("lintConfigurations with the cluster's state", () => {
  // A fail-closed hook on pods whose backend runs in its own namespace and opts its own pods out
  // with a label only their template carries (not the Service's selector).
  const validating = [
    {
      metadata: { name: "c" },
      webhooks: [
        hook("guard.example.com", {
          clientConfig: { service: { namespace: "webhooks", name: "guard" } },
          objectSelector: {
            matchExpressions: [{ key: "example.com/skip", operator: "NotIn", values: ["true"] }],
          },
        }),
      ],
    },
  ];
  const live: LintStateData = {
    namespaces: { webhooks: { "kubernetes.io/metadata.name": "webhooks" } },
    discovery: builtinDiscovery(),
    services: [
      {
        metadata: { namespace: "webhooks", name: "guard" },
        spec: { selector: { app: "guard" }, ports: [{ port: 443 }] },
      },
    ],
    endpointSlices: [],
    pods: [],
    notices: [],
  };
  const l1 = (state: LintStateData) =>
    lintConfigurations([], validating, state).filter((f) => f.id === "L1");

  it("judges a backend with no pod running by its workload's pod template", () => {
    expect(l1(live)).toHaveLength(1);
    const withTemplate: LintStateData = {
      ...live,
      workloads: [
        {
          kind: "Deployment",
          metadata: { namespace: "webhooks", name: "guard" },
          spec: {
            template: { metadata: { labels: { app: "guard", "example.com/skip": "true" } } },
          },
        },
      ],
    };
    expect(l1(withTemplate)).toEqual([]);
  });
});

describe("the minor the webhook pages lint as", () => {
  it("is the cluster's from the live state's /version, else the newest", () => {
    expect(lintMinor({ serverMinor: 36 })).toEqual({ minor: "1.36", source: "cluster" });
    expect(lintMinor({ serverMinor: 40 })).toEqual({
      minor: "1.37",
      source: "cluster",
      reported: "1.40",
    });
    expect(lintMinor(undefined)).toEqual({ minor: "1.37", source: "default" });
    expect(lintMinor({})).toEqual({ minor: "1.37", source: "default" });
  });

  it("is the one the checks reproduce: a hook on every resource is called for TokenReviews before 1.37", () => {
    const all = [
      {
        metadata: { name: "c" },
        webhooks: [
          hook("all.example.com", {
            rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
          }),
        ],
      },
    ];
    const state = (serverMinor: number): LintStateData => ({
      namespaces: {},
      discovery: builtinDiscovery(),
      serverMinor,
      notices: [],
    });
    const l4 = (s: LintStateData) =>
      lintConfigurations([], all, s)
        .filter((f) => f.id === "L4")
        .map((f) => [lintMinor(s).minor, f.severity]);
    expect(l4(state(36))).toEqual([["1.36", "high"]]);
    expect(l4(state(35))).toEqual([["1.35", "high"]]);
    // 1.37 never sends them to webhooks: a wildcard is no finding.
    expect(l4(state(37))).toEqual([]);
  });
});
