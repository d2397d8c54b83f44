import { describe, expect, it } from "vitest";
import { initializerOrder, moveItem, pendingFor } from "./initializers";
import type { InitializerConfiguration } from "../model/snapshot";

const pods = { apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
const all = { apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] };
const deployments = { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"] };

// The design's example: configurations sorted by name, initializers kept in order inside each.
const configs: InitializerConfiguration[] = [
  {
    metadata: { name: "zz-sidecars" },
    initializers: [{ name: "istio.sidecar.example.com", rules: [pods] }],
  },
  {
    metadata: { name: "aa-defaults" },
    initializers: [
      { name: "podpreset.admission.kubernetes.io", rules: [pods] },
      { name: "labels.example.com", rules: [all] },
      { name: "apps.example.com", rules: [deployments] },
    ],
  },
  { metadata: { name: "mm-empty" }, initializers: [] },
];

describe("initializerOrder (§6.1 merge order)", () => {
  it("sorts configurations by name and keeps each one's order", () => {
    expect(
      initializerOrder(configs).map((e) => [e.order, e.configuration, e.position, e.name]),
    ).toEqual([
      [0, "aa-defaults", 0, "podpreset.admission.kubernetes.io"],
      [1, "aa-defaults", 1, "labels.example.com"],
      [2, "aa-defaults", 2, "apps.example.com"],
      [3, "zz-sidecars", 0, "istio.sidecar.example.com"],
    ]);
  });

  it("compares names by bytes as Go does (uppercase before lowercase, digits first)", () => {
    const order = initializerOrder([
      { metadata: { name: "b" }, initializers: [{ name: "b.x.io" }] },
      { metadata: { name: "B" }, initializers: [{ name: "B.x.io" }] },
      { metadata: { name: "1" }, initializers: [{ name: "1.x.io" }] },
    ]);
    expect(order.map((e) => e.configuration)).toEqual(["1", "B", "b"]);
  });
});

describe("pendingFor: the pending list a new object gets", () => {
  it("a new pod: every matching initializer, in merged order", () => {
    const r = pendingFor(configs, { group: "", version: "v1", resource: "pods" });
    expect(r.reason).toBe("matched");
    expect(r.pending).toEqual([
      "podpreset.admission.kubernetes.io",
      "labels.example.com",
      "istio.sidecar.example.com",
    ]);
  });

  it("a new deployment: the wildcard rule and the apps rule", () => {
    expect(
      pendingFor(configs, { group: "apps", version: "v1", resource: "deployments" }).pending,
    ).toEqual(["labels.example.com", "apps.example.com"]);
  });

  it("a version a rule does not name does not match it", () => {
    expect(
      pendingFor(configs, { group: "apps", version: "v1beta2", resource: "deployments" }).pending,
    ).toEqual(["labels.example.com"]);
  });

  it("initializers act on CREATE only, never on a subresource", () => {
    expect(
      pendingFor(configs, { group: "", version: "v1", resource: "pods", operation: "UPDATE" }),
    ).toMatchObject({ pending: [], reason: "not-a-create" });
    expect(
      pendingFor(configs, { group: "", version: "v1", resource: "pods", subresource: "binding" }),
    ).toMatchObject({ pending: [], reason: "subresource" });
  });

  it("a creator who sets metadata.initializers keeps them; an empty list bypasses", () => {
    expect(
      pendingFor(configs, { group: "", version: "v1", resource: "pods", creatorPending: [] }),
    ).toMatchObject({ pending: [], reason: "creator-bypass" });
    expect(
      pendingFor(configs, {
        group: "",
        version: "v1",
        resource: "pods",
        creatorPending: ["mine.example.com"],
      }),
    ).toMatchObject({ pending: ["mine.example.com"], reason: "creator-set" });
  });

  it("mirror pods are exempt", () => {
    expect(
      pendingFor(configs, { group: "", version: "v1", resource: "pods", mirrorPod: true }).reason,
    ).toBe("mirror-pod");
  });

  it("no configuration, or nothing matching: no pending list", () => {
    expect(pendingFor([], { group: "", version: "v1", resource: "pods" })).toMatchObject({
      pending: [],
      reason: "no-initializer-matches",
    });
    expect(
      pendingFor([configs[0] as InitializerConfiguration], {
        group: "",
        version: "v1",
        resource: "services",
      }).pending,
    ).toEqual([]);
  });

  it("duplicate names across configurations stay twice, as the plugin left them", () => {
    const dup: InitializerConfiguration[] = [
      { metadata: { name: "a" }, initializers: [{ name: "x.example.com", rules: [pods] }] },
      { metadata: { name: "b" }, initializers: [{ name: "x.example.com", rules: [all] }] },
    ];
    expect(pendingFor(dup, { group: "", version: "v1", resource: "pods" }).pending).toEqual([
      "x.example.com",
      "x.example.com",
    ]);
  });
});

describe("moveItem", () => {
  it("moves within bounds and ignores moves outside", () => {
    expect(moveItem(["a", "b", "c"], 2, 0)).toEqual(["c", "a", "b"]);
    expect(moveItem(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(moveItem(["a", "b"], 0, 5)).toEqual(["a", "b"]);
  });
});
