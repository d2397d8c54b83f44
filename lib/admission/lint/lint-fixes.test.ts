/**
 * Every lint fix is data that applies (STYLE 18): each finding's JSON Patch is applied with an
 * RFC 6902 library, strictly, to the object it came from; the linter then runs again on the
 * patched state and the finding is gone.
 */
import { describe, expect, it } from "vitest";
import { applyPatch, type Operation } from "fast-json-patch";
import { lint } from "@/lib/admission/lint/lint";
import type { LintFinding, LintId, LintInput } from "@/lib/admission/lint/lint-types";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { hook } from "@/lib/admission/model/test-helpers";
import type {
  V1MutatingWebhook,
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";

const NS = (name: string, extra: Record<string, string> = {}) => ({
  "kubernetes.io/metadata.name": name,
  ...extra,
});
const namespaces = {
  "kube-system": NS("kube-system"),
  "kube-public": NS("kube-public"),
  "kube-node-lease": NS("kube-node-lease"),
  a: NS("a"),
  b: NS("b"),
  c: NS("c"),
  apps: NS("apps"),
};
const labelled = {
  ...namespaces,
  "kube-system": NS("kube-system", { runlevel: "0" }),
  "kube-public": NS("kube-public", { runlevel: "0" }),
  "kube-node-lease": NS("kube-node-lease", { runlevel: "1" }),
};
const svc = (ns: string, name: string, app: string) => ({
  metadata: { namespace: ns, name },
  spec: { selector: { app }, ports: [{ port: 443 }] },
});
const backed = (name: string, ns: string, extra: Partial<V1MutatingWebhook> = {}) =>
  hook(name, { clientConfig: { service: { namespace: ns, name } }, ...extra });
const pods = (extra: Partial<V1MutatingWebhook> = {}) =>
  ({
    rules: [
      { operations: ["CREATE"], apiGroups: ["", "apps"], apiVersions: ["v1"], resources: ["*"] },
    ],
    ...extra,
  }) as Partial<V1MutatingWebhook>;
const discovery = [
  { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true },
  {
    group: "apps",
    version: "v1beta2",
    resource: "deployments",
    kind: "Deployment",
    namespaced: true,
  },
];

/** Scenarios, each meant to raise findings whose fixes carry a patch. */
const SCENARIOS: Array<{ name: string; input: LintInput }> = [
  {
    name: "self-interception (L1), kube-system (L2), lifecycle (L18)",
    input: {
      snapshot: {
        validatingWebhookConfigurations: [
          { metadata: { name: "self" }, webhooks: [backed("self.example.com", "a", pods())] },
        ],
        namespaces,
      },
      services: [svc("a", "self.example.com", "self")],
    },
  },
  {
    name: "kube-system with runlevel labels (L2 runlevel fix)",
    input: {
      snapshot: {
        mutatingWebhookConfigurations: [
          { metadata: { name: "all" }, webhooks: [hook("all.example.com")] },
        ],
        namespaces: labelled,
      },
    },
  },
  {
    name: "self-interception inferred from the clientConfig alone (no Service given)",
    input: {
      snapshot: {
        mutatingWebhookConfigurations: [
          {
            metadata: { name: "inferred" },
            webhooks: [
              backed("inferred.example.com", "apps", {
                ...pods(),
                namespaceSelector: { matchLabels: { team: "x" } },
              }),
            ],
          },
        ],
        namespaces: { ...namespaces, apps: NS("apps", { team: "x" }) },
      },
    },
  },
  {
    name: "a cycle of two (L6)",
    input: {
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "pair" },
            webhooks: [
              backed("one.example.com", "a", pods({ namespaceSelector: sel("In", ["b"]) })),
              backed("two.example.com", "b", pods({ namespaceSelector: sel("In", ["a"]) })),
            ],
          },
        ],
        namespaces,
      },
      services: [svc("a", "one.example.com", "one"), svc("b", "two.example.com", "two")],
    },
  },
  {
    name: "a cycle of three (L6)",
    input: {
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "ring" },
            webhooks: [
              backed("one.example.com", "a", pods({ namespaceSelector: sel("In", ["b"]) })),
              backed("two.example.com", "b", pods({ namespaceSelector: sel("In", ["c"]) })),
              backed("three.example.com", "c", pods({ namespaceSelector: sel("In", ["a"]) })),
            ],
          },
        ],
        namespaces,
      },
      services: [
        svc("a", "one.example.com", "one"),
        svc("b", "two.example.com", "two"),
        svc("c", "three.example.com", "three"),
      ],
    },
  },
  {
    name: "node leases (L3), wildcard (L5), timeouts (L9), sideEffects (L10)",
    input: {
      snapshot: {
        mutatingWebhookConfigurations: [
          {
            metadata: { name: "misc" },
            webhooks: [
              hook("leases.example.com", {
                failurePolicy: "Ignore",
                rules: [
                  {
                    operations: ["UPDATE"],
                    apiGroups: ["coordination.k8s.io"],
                    apiVersions: ["v1"],
                    resources: ["leases"],
                  },
                ],
              }),
              hook("wild.example.com", {
                rules: [
                  { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] },
                ],
              }),
              hook("nodes.example.com", {
                failurePolicy: "Fail",
                rules: [
                  {
                    operations: ["UPDATE"],
                    apiGroups: [""],
                    apiVersions: ["v1"],
                    resources: ["nodes"],
                  },
                ],
              }),
              hook("slow.example.com", { failurePolicy: "Ignore", timeoutSeconds: 25 }),
              hook("legacy.example.com", { failurePolicy: "Ignore", sideEffects: "Unknown" }),
            ],
          },
        ],
        namespaces: labelled,
      },
    },
  },
  {
    name: "Exact matchPolicy (L12) and a service path the apiserver rejects (L17)",
    input: {
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "versions" },
            webhooks: [
              hook("exact.example.com", {
                failurePolicy: "Ignore",
                matchPolicy: "Exact",
                rules: [
                  {
                    operations: ["CREATE"],
                    apiGroups: ["apps"],
                    apiVersions: ["v1"],
                    resources: ["deployments"],
                  },
                ],
              }),
              hook("path.example.com", {
                failurePolicy: "Ignore",
                clientConfig: {
                  service: { namespace: "apps", name: "svc", path: "/Validate_Pods/v1" },
                },
              }),
            ],
          },
        ],
        namespaces: labelled,
        discovery,
      },
    },
  },
];

function sel(operator: "In" | "NotIn", values: string[]) {
  return { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator, values }] };
}

type Config = V1MutatingWebhookConfiguration | V1ValidatingWebhookConfiguration;

/** The snapshot with the finding's target replaced by the patched object. */
function patched(snapshot: AdmissionSnapshot, f: LintFinding): AdmissionSnapshot {
  const target = f.fix?.target;
  if (!target) throw new Error(`${f.id} has a patch but no target`);
  const key =
    target.kind === "MutatingWebhookConfiguration"
      ? "mutatingWebhookConfigurations"
      : target.kind === "ValidatingWebhookConfiguration"
        ? "validatingWebhookConfigurations"
        : undefined;
  if (!key) throw new Error(`${f.id}: unexpected target kind ${target.kind}`);
  const list = (snapshot[key] ?? []) as Config[];
  const idx = list.findIndex((c) => c.metadata?.name === target.name);
  if (idx < 0) throw new Error(`${f.id}: target ${target.name} not in the snapshot`);
  // validateOperation: a `replace` or `remove` of a missing member throws, as RFC 6902 requires.
  const result = applyPatch(
    structuredClone(list[idx]),
    (f.fix?.jsonPatch ?? []) as Operation[],
    true,
    false,
  );
  const next = list.slice();
  next[idx] = result.newDocument as Config;
  return { ...snapshot, [key]: next };
}

const same = (a: LintFinding, b: LintFinding) =>
  a.id === b.id && JSON.stringify(a.objects[0]) === JSON.stringify(b.objects[0]);

describe("every lint fix applies to its object and clears its finding", () => {
  const covered = new Set<LintId>();
  for (const s of SCENARIOS) {
    const findings = lint(s.input);
    const withPatch = findings.filter((f) => (f.fix?.jsonPatch?.length ?? 0) > 0);
    it(`${s.name}: raises findings with patches`, () => {
      expect(withPatch.length).toBeGreaterThan(0);
    });
    for (const f of withPatch) {
      covered.add(f.id);
      it(`${s.name}: ${f.id} ${f.objects[0]?.hook ?? f.objects[0]?.name ?? ""}`, () => {
        const snapshot = patched(s.input.snapshot, f);
        const after = lint({ ...s.input, snapshot });
        expect(after.filter((x) => same(x, f))).toEqual([]);
      });
    }
  }
  it("covers every check that proposes a patch", () => {
    expect([...covered].sort()).toEqual(
      ["L1", "L10", "L12", "L17", "L18", "L2", "L3", "L5", "L6", "L9"].sort(),
    );
  });
});

describe("RFC 6902 strictness the fixes rely on", () => {
  it("refuses `replace` of a missing failurePolicy, which is why the fixes use `add`", () => {
    const obj = { webhooks: [{ name: "x" }] };
    expect(() =>
      applyPatch(
        structuredClone(obj),
        [{ op: "replace", path: "/webhooks/0/failurePolicy", value: "Ignore" }],
        true,
        false,
      ),
    ).toThrow();
    expect(
      applyPatch(
        structuredClone(obj),
        [{ op: "add", path: "/webhooks/0/failurePolicy", value: "Ignore" }],
        true,
        false,
      ).newDocument,
    ).toEqual({ webhooks: [{ name: "x", failurePolicy: "Ignore" }] });
  });
});
