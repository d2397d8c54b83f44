import { describe, expect, it } from "vitest";
import { collectionFromList } from "./kube-list";

describe("collectionFromList", () => {
  it("fills each item's apiVersion and kind from the List, keeping what an item states", () => {
    const c = collectionFromList({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfigurationList",
      metadata: { resourceVersion: "42" },
      items: [{ metadata: { name: "a" } }, { kind: "Other", metadata: { name: "b" } }],
    });
    expect(c.resourceVersion).toBe("42");
    expect(c.items).toEqual([
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "a" },
      },
      { apiVersion: "admissionregistration.k8s.io/v1", kind: "Other", metadata: { name: "b" } },
    ]);
  });

  it("reads an empty List (items null, as the apiserver may send) as no items", () => {
    expect(collectionFromList({ kind: "NamespaceList", items: null })).toEqual({
      resourceVersion: "",
      items: [],
    });
  });
});
