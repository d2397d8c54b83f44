import { describe, expect, it } from "vitest";
import { hook } from "@/lib/admission/model/test-helpers";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import type { LintStateData } from "@/lib/api/webhooks";
import { lintConfigurations } from "./findings";

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
