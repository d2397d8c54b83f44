import { describe, expect, it } from "vitest";
import { lint } from "@/lib/admission/lint/lint";
import { hook } from "@/lib/admission/model/test-helpers";

const cfg = (...webhooks: ReturnType<typeof hook>[]) => ({
  validatingWebhookConfigurations: [{ metadata: { name: "c" }, webhooks }],
});
const only = (id: string, f: ReturnType<typeof lint>) => f.filter((x) => x.id === id);

describe("L4 (exclusion/resources.go excluded)", () => {
  const rules = [
    {
      operations: ["CREATE"],
      apiGroups: ["authentication.k8s.io"],
      apiVersions: ["v1"],
      resources: ["tokenreviews"],
    },
  ];
  it.each([
    { minor: 36, severity: "high" },
    { minor: 37, severity: "info" },
  ])("server 1.$minor → $severity", ({ minor, severity }) => {
    expect(
      only("L4", lint({ snapshot: cfg(hook("h", { rules })), serverMinor: minor }))[0]?.severity,
    ).toBe(severity);
  });
  it("a wildcard reaches them only before 1.37", () => {
    const wild = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }];
    expect(
      only("L4", lint({ snapshot: cfg(hook("h", { rules: wild })), serverMinor: 37 })),
    ).toHaveLength(0);
    expect(
      only("L4", lint({ snapshot: cfg(hook("h", { rules: wild })), serverMinor: 30 })),
    ).toHaveLength(1);
  });
});

describe("L5 (§2.3 cluster-scoped objects cannot be exempted by namespace)", () => {
  it("flags an unfiltered fail-closed wildcard", () => {
    const wild = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];
    expect(only("L5", lint({ snapshot: cfg(hook("h", { rules: wild })) }))[0]?.title).toBe(
      "Cluster-wide fail-closed wildcard",
    );
  });
  it("flags fail-closed rules on nodes", () => {
    const rules = [
      { operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] },
    ];
    expect(only("L5", lint({ snapshot: cfg(hook("h", { rules })) }))).toHaveLength(1);
  });
});

describe("L11 (object/matcher.go: labels can be changed by users; no metadata on CONNECT)", () => {
  it("flags a validating objectSelector", () => {
    expect(
      only(
        "L11",
        lint({ snapshot: cfg(hook("h", { objectSelector: { matchLabels: { a: "b" } } })) }),
      )[0]?.severity,
    ).toBe("medium");
  });
});

describe("L12 (Good Practices 'Match all versions')", () => {
  it("flags Exact when discovery serves another version", () => {
    const rules = [
      {
        operations: ["*"],
        apiGroups: ["autoscaling"],
        apiVersions: ["v1"],
        resources: ["horizontalpodautoscalers"],
      },
    ];
    const discovery = ["v1", "v2"].map((version) => ({
      group: "autoscaling",
      version,
      resource: "horizontalpodautoscalers",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
    }));
    const f = only(
      "L12",
      lint({ snapshot: { ...cfg(hook("h", { rules, matchPolicy: "Exact" })), discovery } }),
    );
    expect(f[0]?.fix?.jsonPatch).toEqual([
      { op: "add", path: "/webhooks/0/matchPolicy", value: "Equivalent" },
    ]);
  });
});

describe("L16 (policies are not exempt from webhook configurations)", () => {
  it("flags a Deny VAP on webhook configuration DELETE", () => {
    const f = lint({
      snapshot: {
        validatingAdmissionPolicies: [
          {
            metadata: { name: "guard" },
            spec: {
              matchConstraints: {
                resourceRules: [
                  {
                    operations: ["DELETE"],
                    apiGroups: ["admissionregistration.k8s.io"],
                    apiVersions: ["v1"],
                    resources: ["validatingwebhookconfigurations"],
                  },
                ],
              },
              validations: [{ expression: "false" }],
            },
          },
        ],
        validatingAdmissionPolicyBindings: [
          {
            metadata: { name: "guard-b" },
            spec: { policyName: "guard", validationActions: ["Deny"] },
          },
        ],
      },
    });
    expect(only("L16", f)).toHaveLength(1);
  });
});

describe("L17 (§1.3 wildcard quirks, service path segments)", () => {
  it("flags `pods` next to `pods/*` and a bad service path", () => {
    const rules = [
      { operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods", "pods/*"] },
    ];
    const h = hook("h", {
      rules,
      clientConfig: { service: { namespace: "n", name: "s", path: "/Validate_Pods" } },
    });
    expect(only("L17", lint({ snapshot: cfg(h) }))).toHaveLength(2);
  });
});

describe("L16 for static hooks and policies (manifest-based admission)", () => {
  const configRules = [
    {
      operations: ["UPDATE", "DELETE"],
      apiGroups: ["admissionregistration.k8s.io"],
      apiVersions: ["v1"],
      resources: ["validatingwebhookconfigurations"],
    },
  ];
  const origin = {
    kind: "manifest" as const,
    plugin: "ValidatingAdmissionWebhook" as const,
    file: "/etc/kubernetes/admission/vwc/guard.yaml",
  };
  it("a static webhook failing closed on webhook configuration writes blocks the repair", () => {
    const snapshot = {
      validatingWebhookConfigurations: [
        {
          metadata: { name: "guard.static.k8s.io" },
          webhooks: [hook("g", { rules: configRules })],
        },
        { metadata: { name: "api" }, webhooks: [hook("a", { rules: configRules })] },
      ],
      manifestOrigins: { "ValidatingWebhookConfiguration/guard.static.k8s.io": origin },
    };
    const found = only("L16", lint({ snapshot }));
    expect(found.map((f) => [f.objects[0]?.name, f.fix])).toEqual([
      ["guard.static.k8s.io", undefined],
    ]);
    expect(found[0]?.explanation).toContain(origin.file);
  });
  it("an ignoring static webhook does not", () => {
    const snapshot = {
      validatingWebhookConfigurations: [
        {
          metadata: { name: "guard.static.k8s.io" },
          webhooks: [hook("g", { rules: configRules, failurePolicy: "Ignore" })],
        },
      ],
      manifestOrigins: { "ValidatingWebhookConfiguration/guard.static.k8s.io": origin },
    };
    expect(only("L16", lint({ snapshot }))).toEqual([]);
  });
});
