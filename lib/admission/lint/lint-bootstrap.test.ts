import { describe, expect, it } from "vitest";
import { lint } from "@/lib/admission/lint/lint";
import { hook } from "@/lib/admission/model/test-helpers";
import type { V1MutatingWebhook } from "@/lib/k8s/types";

const namespaces = {
  "kube-system": { "kubernetes.io/metadata.name": "kube-system" },
  "kube-node-lease": { "kubernetes.io/metadata.name": "kube-node-lease" },
  webhooks: { "kubernetes.io/metadata.name": "webhooks" },
};
const svcHook = (name: string, svc: string, extra: Partial<V1MutatingWebhook> = {}) =>
  hook(name, { clientConfig: { service: { namespace: "webhooks", name: svc } }, ...extra });
const service = (name: string, app: string) => ({
  metadata: { namespace: "webhooks", name },
  spec: { selector: { app }, ports: [{ port: 443 }] },
});
const pod = (app: string) => ({
  metadata: { namespace: "webhooks", name: `${app}-1`, labels: { app } },
});
const ids = (f: ReturnType<typeof lint>) => f.map((x) => x.id);

describe("L1 (§7.1 self-interception, Good Practices 'Avoid self-mutations')", () => {
  it("flags a fail-closed hook on pods in its own backend namespace, with a name-exclusion patch", () => {
    const f = lint({
      snapshot: {
        validatingWebhookConfigurations: [
          { metadata: { name: "c" }, webhooks: [svcHook("self", "a")] },
        ],
        namespaces,
      },
      services: [service("a", "a")],
      pods: [pod("a")],
    });
    const l1 = f.find((x) => x.id === "L1");
    expect(l1?.severity).toBe("critical");
    expect(l1?.fix?.jsonPatch).toEqual([
      {
        op: "add",
        path: "/webhooks/0/namespaceSelector",
        value: {
          matchExpressions: [
            { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["webhooks"] },
          ],
        },
      },
    ]);
  });
  it("is silent when the namespaceSelector exempts the backend namespace", () => {
    const sel = {
      matchExpressions: [
        { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["webhooks"] },
      ],
    };
    const f = lint({
      snapshot: {
        validatingWebhookConfigurations: [
          { metadata: { name: "c" }, webhooks: [svcHook("self", "a", { namespaceSelector: sel })] },
        ],
        namespaces,
      },
      services: [service("a", "a")],
      pods: [pod("a")],
    });
    expect(ids(f)).not.toContain("L1");
  });
  it("is silent with failurePolicy Ignore", () => {
    const f = lint({
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "c" },
            webhooks: [svcHook("self", "a", { failurePolicy: "Ignore" })],
          },
        ],
        namespaces,
      },
      services: [service("a", "a")],
      pods: [pod("a")],
    });
    expect(ids(f)).not.toContain("L1");
  });
});

describe("L6 (Good Practices 'Avoid dependency loops')", () => {
  it("reports two hooks guarding each other's pods", () => {
    const objSel = (app: string) => ({ objectSelector: { matchLabels: { app } } });
    const f = lint({
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "c" },
            webhooks: [svcHook("a", "a", objSel("b")), svcHook("b", "b", objSel("a"))],
          },
        ],
        namespaces,
      },
      services: [service("a", "a"), service("b", "b")],
      pods: [pod("a"), pod("b")],
    });
    expect(f.filter((x) => x.id === "L6")).toHaveLength(1);
    expect(ids(f)).not.toContain("L1");
  });
});

describe("L2 (Good Practices 'Limit the scope')", () => {
  it("flags kube-system interception and, with kube-system unlabelled, excludes it by name", () => {
    const f = lint({
      snapshot: {
        mutatingWebhookConfigurations: [{ metadata: { name: "c" }, webhooks: [hook("all-pods")] }],
        namespaces,
      },
    });
    const l2 = f.find((x) => x.id === "L2");
    expect(l2?.severity).toBe("critical");
    expect(l2?.fix?.merge).toEqual({
      webhooks: [
        {
          name: "all-pods",
          namespaceSelector: {
            matchExpressions: [
              {
                key: "kubernetes.io/metadata.name",
                operator: "NotIn",
                values: ["kube-system", "kube-public", "kube-node-lease"],
              },
            ],
          },
        },
      ],
    });
  });
  it("says 'may' when only a matchCondition on the object's spec, unknown here, could spare them", () => {
    const byImage = hook("images", {
      matchConditions: [
        {
          name: "evil-images",
          expression: 'object.spec.containers.exists(c, c.image.startsWith("registry.evil/"))',
        },
      ],
    });
    const f = lint({
      snapshot: {
        validatingWebhookConfigurations: [{ metadata: { name: "c" }, webhooks: [byImage] }],
        namespaces,
      },
    });
    const l2 = f.find((x) => x.id === "L2");
    expect(l2?.explanation).toMatch(
      /^images \(failurePolicy Fail\) may \(depending on matchConditions that read the object\) intercept writes in kube-system/,
    );
  });

  it("proposes runlevel NotIn [0,1] when the hit namespaces carry runlevel 0 or 1", () => {
    const labelled = Object.fromEntries(
      ["kube-system", "kube-public", "kube-node-lease"].map((ns) => [
        ns,
        { "kubernetes.io/metadata.name": ns, runlevel: "0" },
      ]),
    );
    const f = lint({
      snapshot: {
        mutatingWebhookConfigurations: [{ metadata: { name: "c" }, webhooks: [hook("all-pods")] }],
        namespaces: labelled,
      },
    });
    expect(f.find((x) => x.id === "L2")?.fix?.merge).toEqual({
      webhooks: [
        {
          name: "all-pods",
          namespaceSelector: {
            matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
          },
        },
      ],
    });
  });
  it("is silent when kube-system carries runlevel 0 and the hook excludes it", () => {
    const f = lint({
      snapshot: {
        mutatingWebhookConfigurations: [
          {
            metadata: { name: "c" },
            webhooks: [
              hook("h", {
                namespaceSelector: {
                  matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
                },
              }),
            ],
          },
        ],
        namespaces: {
          ...namespaces,
          "kube-system": { runlevel: "0" },
          "kube-public": { runlevel: "0" },
          "kube-node-lease": { runlevel: "0" },
        },
      },
    });
    expect(ids(f)).not.toContain("L2");
  });
});

describe("L3 (Good Practices: node leases)", () => {
  it("flags a mutating webhook on leases in kube-node-lease", () => {
    const rules = [
      {
        operations: ["*"],
        apiGroups: ["coordination.k8s.io"],
        apiVersions: ["v1"],
        resources: ["leases"],
      },
    ];
    expect(
      ids(
        lint({
          snapshot: {
            mutatingWebhookConfigurations: [
              {
                metadata: { name: "c" },
                webhooks: [hook("h", { rules, failurePolicy: "Ignore" })],
              },
            ],
            namespaces,
          },
        }),
      ),
    ).toContain("L3");
  });
});

describe("L18 (namespace controller deletes through admission)", () => {
  it("flags fail-closed DELETE of namespaced objects", () => {
    const rules = [
      { operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ];
    expect(
      ids(
        lint({
          snapshot: {
            validatingWebhookConfigurations: [
              { metadata: { name: "c" }, webhooks: [hook("h", { rules })] },
            ],
          },
        }),
      ),
    ).toContain("L18");
  });
});
