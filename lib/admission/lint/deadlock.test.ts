import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { dependencyGraph, findCycles, type DependencyInput } from "@/lib/admission/lint/deadlock";
import { hook } from "@/lib/admission/model/test-helpers";
import type { V1MutatingWebhook } from "@/lib/k8s/types";

const NS = (name: string, extra: Record<string, string> = {}) => ({
  "kubernetes.io/metadata.name": name,
  ...extra,
});
const only = (ns: string) => ({
  matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [ns] }],
});
const backed = (name: string, ns: string, extra: Partial<V1MutatingWebhook> = {}) =>
  hook(name, { clientConfig: { service: { namespace: ns, name } }, ...extra });
const svc = (ns: string, name: string) => ({
  metadata: { namespace: ns, name },
  spec: { selector: { app: name } },
});

function graph(input: DependencyInput) {
  return dependencyGraph(input, compileSnapshot(input.snapshot));
}

describe("findCycles", () => {
  it("finds a cycle of length 2", () => {
    expect(
      findCycles(
        ["a", "b", "c"],
        [
          { from: "a", to: "b" },
          { from: "b", to: "a" },
          { from: "b", to: "c" },
        ],
      ),
    ).toEqual([["a", "b"]]);
  });
  it("finds a cycle of length 3 and none in a chain", () => {
    expect(
      findCycles(
        ["a", "b", "c"],
        [
          { from: "a", to: "b" },
          { from: "b", to: "c" },
          { from: "c", to: "a" },
        ],
      ),
    ).toEqual([["a", "b", "c"]]);
    expect(
      findCycles(
        ["a", "b", "c"],
        [
          { from: "a", to: "b" },
          { from: "b", to: "c" },
        ],
      ),
    ).toEqual([]);
  });
  it("ignores self-loops (those are L1) and reports each strongly connected set once", () => {
    expect(findCycles(["a"], [{ from: "a", to: "a" }])).toEqual([]);
    const cycles = findCycles(
      ["a", "b", "c", "d", "e"],
      [
        { from: "a", to: "b" },
        { from: "b", to: "a" },
        { from: "c", to: "d" },
        { from: "d", to: "e" },
        { from: "e", to: "c" },
      ],
    );
    expect(cycles).toEqual([
      ["a", "b"],
      ["c", "d", "e"],
    ]);
  });
});

describe("dependencyGraph", () => {
  const namespaces = { a: NS("a"), b: NS("b"), c: NS("c"), "kube-system": NS("kube-system") };
  it("finds a three-hook cycle between fail-closed hooks from their Services' namespaces", () => {
    const g = graph({
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "ring" },
            webhooks: [
              backed("one.x.io", "a", { namespaceSelector: only("b") }),
              backed("two.x.io", "b", { namespaceSelector: only("c") }),
              backed("three.x.io", "c", { namespaceSelector: only("a") }),
            ],
          },
        ],
        namespaces,
      },
      services: [svc("a", "one.x.io"), svc("b", "two.x.io"), svc("c", "three.x.io")],
    });
    expect(g.cycles.map((c) => c.map((k) => k.split("/")[1]))).toEqual([
      ["one.x.io", "two.x.io", "three.x.io"],
    ]);
    expect(g.selfLoops).toEqual([]);
    expect(g.hooks.map((h) => h.backend?.source)).toEqual([
      "service-selector",
      "service-selector",
      "service-selector",
    ]);
  });
  it("breaks the cycle when one hook fails open, but keeps the edge", () => {
    const g = graph({
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "pair" },
            webhooks: [
              backed("one.x.io", "a", { namespaceSelector: only("b") }),
              backed("two.x.io", "b", { namespaceSelector: only("a"), failurePolicy: "Ignore" }),
            ],
          },
        ],
        namespaces,
      },
      services: [svc("a", "one.x.io"), svc("b", "two.x.io")],
    });
    expect(g.cycles).toEqual([]);
    expect(g.edges).toHaveLength(2);
  });
  it("flags self-interception, kube-system coverage and a backend without ready endpoints", () => {
    const g = graph({
      snapshot: {
        mutatingWebhookConfigurations: [
          { metadata: { name: "self" }, webhooks: [backed("self.x.io", "a")] },
        ],
        namespaces: { ...namespaces, addons: NS("addons", { runlevel: "1" }) },
      },
      services: [svc("a", "self.x.io")],
      endpointSlices: [
        {
          addressType: "IPv4",
          metadata: {
            namespace: "a",
            name: "s1",
            labels: { "kubernetes.io/service-name": "self.x.io" },
          },
          endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: false } }],
        },
      ],
    });
    expect(g.selfLoops).toHaveLength(1);
    const node = g.hooks[0];
    expect([...(node?.critical ?? [])].sort()).toEqual(
      ["addons", "kube-node-lease", "kube-public", "kube-system"].sort(),
    );
    expect(node?.backend?.readyEndpoints).toBe(0);
    expect(node?.backend?.serviceFound).toBe(true);
  });
  it("a matchCondition on the pod's spec decides nothing on pods known by labels only", () => {
    const byImage = (failurePolicy: "Fail" | "Ignore") =>
      backed("images.x.io", "a", {
        failurePolicy,
        matchConditions: [
          {
            name: "evil-images",
            expression: 'object.spec.containers.exists(c, c.image.startsWith("registry.evil/"))',
          },
        ],
      });
    for (const failurePolicy of ["Fail", "Ignore"] as const) {
      const g = graph({
        snapshot: {
          validatingWebhookConfigurations: [
            { metadata: { name: "images" }, webhooks: [byImage(failurePolicy)] },
          ],
          namespaces,
        },
        services: [svc("a", "images.x.io")],
      });
      expect(g.edges.map((e) => e.verdict)).toEqual(["maybe"]);
    }
    // A condition on what the map knows (the request, the pods' labels) still decides.
    const g = graph({
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "images" },
            webhooks: [
              backed("images.x.io", "a", {
                failurePolicy: "Fail",
                matchConditions: [
                  { name: "not-mine", expression: 'object.metadata.labels.app != "images.x.io"' },
                ],
              }),
            ],
          },
        ],
        namespaces,
      },
      services: [svc("a", "images.x.io")],
    });
    expect(g.edges).toEqual([]);
    expect(g.selfLoops).toEqual([]);
  });
  it("counts only the endpoints the apiserver can call: on the hook's Service port, by its name", () => {
    const slice = (portName: string) => ({
      addressType: "IPv4",
      metadata: {
        namespace: "a",
        name: `s-${portName}`,
        labels: { "kubernetes.io/service-name": "self.x.io" },
      },
      ports: [{ name: portName, port: 8443 }],
      endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true } }],
    });
    const ready = (service: object, slices: ReturnType<typeof slice>[]) =>
      graph({
        snapshot: {
          mutatingWebhookConfigurations: [
            { metadata: { name: "self" }, webhooks: [backed("self.x.io", "a")] },
          ],
          namespaces,
        },
        services: [{ metadata: { namespace: "a", name: "self.x.io" }, ...service }],
        endpointSlices: slices,
      }).hooks[0]?.backend?.readyEndpoints;
    const named = { spec: { selector: { app: "x" }, ports: [{ name: "https", port: 443 }] } };
    expect(ready(named, [slice("https")])).toBe(1);
    // Ready, but under another port name: the apiserver finds no endpoint for the Service port.
    expect(ready(named, [slice("web")])).toBe(0);
    // The Service does not have the port the hook calls (443 by default).
    expect(ready({ spec: { ports: [{ name: "https", port: 8443 }] } }, [slice("https")])).toBe(0);
    // An ExternalName Service has no endpoints by design: not counted.
    expect(
      ready({ spec: { type: "ExternalName", externalName: "hooks.example.com" } }, []),
    ).toBeUndefined();
  });
  it("uses workload templates for pod labels, so an objectSelector can exempt the backend", () => {
    const input = (labels: Record<string, string>): DependencyInput => ({
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "self" },
            webhooks: [
              backed("self.x.io", "a", {
                objectSelector: {
                  matchExpressions: [{ key: "exempt", operator: "DoesNotExist" }],
                },
              }),
            ],
          },
        ],
        namespaces,
      },
      services: [svc("a", "self.x.io")],
      workloads: [
        {
          kind: "Deployment",
          metadata: { namespace: "a", name: "d" },
          spec: { template: { metadata: { labels: { app: "self.x.io", ...labels } } } },
        },
      ],
    });
    expect(graph(input({})).selfLoops).toHaveLength(1);
    const exempt = graph(input({ exempt: "true" }));
    expect(exempt.selfLoops).toEqual([]);
    expect(exempt.hooks[0]?.backend?.source).toBe("workloads");
  });
});
