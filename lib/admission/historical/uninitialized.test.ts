import { describe, expect, it } from "vitest";
import {
  analyzeUninitialized,
  coveredCollections,
  DEFAULT_STUCK_AFTER_SECONDS,
  pendingObjects,
} from "@/lib/admission/historical/uninitialized";
import type { DiscoveryResource, InitializerConfiguration } from "@/lib/admission/model/snapshot";

// The seeds' example: podimage.example.com on v1 pods (a controller that must run before the
// configuration exists, "otherwise every newly created pod stays uninitialized").
const configs: InitializerConfiguration[] = [
  {
    metadata: { name: "example-config" },
    initializers: [
      {
        name: "podimage.example.com",
        rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
      },
    ],
  },
  {
    metadata: { name: "aa-everything" },
    initializers: [
      {
        name: "labels.example.com",
        rules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
      },
    ],
  },
];

const discovery: DiscoveryResource[] = [
  { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true },
  { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true },
  { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true },
  {
    group: "extensions",
    version: "v1beta1",
    resource: "deployments",
    kind: "Deployment",
    namespaced: true,
    equivalenceKey: "apps/deployments",
  },
];

describe("coveredCollections", () => {
  it("lists each served resource an initializer covers once, with its initializers in merged order", () => {
    expect(coveredCollections(configs, discovery)).toEqual([
      {
        group: "",
        version: "v1",
        resource: "pods",
        namespaced: true,
        initializers: ["labels.example.com", "podimage.example.com"],
      },
      {
        group: "",
        version: "v1",
        resource: "configmaps",
        namespaced: true,
        initializers: ["labels.example.com"],
      },
      {
        group: "apps",
        version: "v1",
        resource: "deployments",
        namespaced: true,
        initializers: ["labels.example.com"],
      },
    ]);
  });

  it("lists nothing without initializers", () => {
    expect(coveredCollections([], discovery)).toEqual([]);
    expect(coveredCollections([{ metadata: { name: "x" }, initializers: [] }], discovery)).toEqual(
      [],
    );
  });
});

describe("pendingObjects and analyzeUninitialized", () => {
  const now = Date.parse("2018-06-01T12:00:00Z");
  const pods = { group: "", version: "v1", resource: "pods" };
  const items = [
    {
      metadata: {
        name: "web-1",
        namespace: "team",
        creationTimestamp: "2018-06-01T11:00:00Z",
        initializers: { pending: [{ name: "podimage.example.com" }] },
      },
    },
    {
      metadata: {
        name: "web-2",
        namespace: "team",
        creationTimestamp: "2018-06-01T11:30:00Z",
        initializers: {
          pending: [{ name: "podimage.example.com" }, { name: "other.example.com" }],
        },
      },
    },
    {
      metadata: {
        name: "fresh",
        namespace: "team",
        creationTimestamp: "2018-06-01T11:59:30Z",
        initializers: {
          pending: [{ name: "labels.example.com" }, { name: "podimage.example.com" }],
        },
      },
    },
    // Initialized: the struct is nil, or the list empty.
    { metadata: { name: "done", namespace: "team", creationTimestamp: "2018-06-01T10:00:00Z" } },
    {
      metadata: {
        name: "done-too",
        namespace: "team",
        creationTimestamp: "2018-06-01T10:00:00Z",
        initializers: { pending: [] },
      },
    },
  ];
  const objects = pendingObjects(pods, items, now, DEFAULT_STUCK_AFTER_SECONDS);

  it("keeps objects with pending initializers, with age and the head of the list", () => {
    expect(objects.map((o) => [o.name, o.ageSeconds, o.waitingOn, o.stuck])).toEqual([
      ["web-1", 3600, "podimage.example.com", true],
      ["web-2", 1800, "podimage.example.com", true],
      ["fresh", 30, "labels.example.com", false],
    ]);
    expect(objects[1]?.pending).toEqual(["podimage.example.com", "other.example.com"]);
  });

  it("groups the stuck ones by the initializer that blocks them, with what it covers", () => {
    const r = analyzeUninitialized(objects, coveredCollections(configs, discovery));
    expect(r.objects.map((o) => o.name)).toEqual(["web-1", "web-2", "fresh"]);
    expect(r.stuck).toHaveLength(1);
    expect(r.stuck[0]).toMatchObject({
      initializer: "podimage.example.com",
      count: 2,
      oldestAgeSeconds: 3600,
      covers: ["pods"],
    });
  });

  it("a lower threshold makes the fresh object stuck too, on its own initializer", () => {
    const r = analyzeUninitialized(
      pendingObjects(pods, items, now, 10),
      coveredCollections(configs, discovery),
    );
    expect(r.stuck.map((g) => [g.initializer, g.count])).toEqual([
      ["podimage.example.com", 2],
      ["labels.example.com", 1],
    ]);
    expect(r.stuck[1]?.covers).toEqual(["pods", "configmaps", "deployments.apps"]);
  });
});
