import { describe, expect, it } from "vitest";
import {
  NAMESPACES,
  packNamespaces,
  snapshotOfCollections,
  unpackNamespaces,
} from "@/lib/namespaces/matrix-collections";

describe("packed namespaces", () => {
  it("round-trips names, creation times and labels, sharing repeated label sets", () => {
    const items = ["a", "b", "c"].map((name, i) => ({
      metadata: {
        name,
        uid: "dropped",
        creationTimestamp: `2026-11-23T12:00:0${i}Z`,
        labels: {
          "kubernetes.io/metadata.name": name,
          ...(name === "c" ? { runlevel: "0" } : { env: "prod", team: "x" }),
        },
      },
    }));
    const packed = packNamespaces("42", items);
    expect(packed.labelSets).toEqual([{ env: "prod", team: "x" }, { runlevel: "0" }]);
    expect(packed.sets).toEqual([0, 0, 1]);
    expect(unpackNamespaces(JSON.parse(JSON.stringify(packed)))).toEqual({
      resourceVersion: "42",
      items: items.map((i) => ({
        metadata: {
          name: i.metadata.name,
          creationTimestamp: i.metadata.creationTimestamp,
          labels: i.metadata.labels,
        },
      })),
    });
  });
  it("treats label order as irrelevant and skips items without a name", () => {
    const p = packNamespaces("1", [
      { metadata: { name: "x", labels: { a: "1", b: "2" } } },
      { metadata: { name: "y", labels: { b: "2", a: "1" } } },
      { metadata: { labels: { a: "1" } } },
    ]);
    expect(p.names).toEqual(["x", "y"]);
    expect(p.labelSets).toHaveLength(1);
  });
  it("keeps which namespaces are Terminating, and only when some are", () => {
    const items = [
      { metadata: { name: "a" }, status: { phase: "Active" } },
      { metadata: { name: "b" }, status: { phase: "Terminating" } },
      { metadata: { name: "c" } },
    ];
    const packed = packNamespaces("7", items);
    expect(packed.terminating).toEqual([1]);
    const unpacked = unpackNamespaces(JSON.parse(JSON.stringify(packed)));
    expect(unpacked.items.map((i) => i.status?.phase)).toEqual([
      undefined,
      "Terminating",
      undefined,
    ]);
    expect(
      snapshotOfCollections([{ resource: NAMESPACES.resource, items: unpacked.items }]).snapshot
        .terminatingNamespaces,
    ).toEqual(["b"]);
    expect(
      snapshotOfCollections([{ resource: NAMESPACES.resource, items }]).snapshot
        .terminatingNamespaces,
    ).toEqual(["b"]);
    const none = packNamespaces("8", [items[0]!, items[2]!]);
    expect("terminating" in none).toBe(false);
    expect(
      "terminatingNamespaces" in
        snapshotOfCollections([{ resource: NAMESPACES.resource, items: [items[0]] }]).snapshot,
    ).toBe(false);
  });
});
