import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { dependencyGraph, type DependencyInput } from "@/lib/admission/lint/deadlock";
import { deadlockMap } from "@/lib/namespaces/deadlock-view";
import { hook } from "@/lib/admission/model/test-helpers";

const NS = (name: string) => ({ "kubernetes.io/metadata.name": name });
const only = (ns: string) => ({
  matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: [ns] }],
});

describe("deadlockMap", () => {
  it("draws hook → backend → intercepting hook and marks the edges of a cycle", () => {
    const input: DependencyInput = {
      snapshot: {
        validatingWebhookConfigurations: [
          {
            metadata: { name: "pair" },
            webhooks: [
              hook("one.x.io", {
                clientConfig: { service: { namespace: "a", name: "one" } },
                namespaceSelector: only("b"),
              }),
              hook("two.x.io", {
                clientConfig: { service: { namespace: "b", name: "two" } },
                namespaceSelector: only("a"),
              }),
              hook("url.x.io", { namespaceSelector: only("nowhere") }),
            ],
          },
        ],
        namespaces: { a: NS("a"), b: NS("b") },
      },
      services: [
        { metadata: { namespace: "a", name: "one" }, spec: { selector: { app: "one" } } },
        { metadata: { namespace: "b", name: "two" }, spec: { selector: { app: "two" } } },
      ],
      endpointSlices: [],
    };
    const map = deadlockMap(dependencyGraph(input, compileSnapshot(input.snapshot)));
    expect(map.nodes.map((n) => n.label).sort()).toEqual([
      "a/one",
      "b/two",
      "one.x.io",
      "two.x.io",
    ]);
    expect(map.nodes.find((n) => n.label === "a/one")?.alarms).toEqual(["no ready endpoints"]);
    expect(map.nodes.find((n) => n.label === "one.x.io")?.alarms).toEqual([
      "in a cycle of fail-closed hooks (#1)",
    ]);
    const label = new Map(map.nodes.map((n) => [n.id, n.label]));
    const edges = map.edges.map(
      (e) =>
        `${e.kind}: ${label.get(e.from)} → ${label.get(e.to)}${e.deadlock ? " (deadlock)" : ""}`,
    );
    expect(edges.sort()).toEqual(
      [
        "serves: one.x.io → a/one (deadlock)",
        "serves: two.x.io → b/two (deadlock)",
        // b/two's pods are intercepted by one.x.io, a/one's by two.x.io
        "intercepts: b/two → one.x.io (deadlock)",
        "intercepts: a/one → two.x.io (deadlock)",
      ].sort(),
    );
  });
});
