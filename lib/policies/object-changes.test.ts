import { describe, expect, it } from "vitest";
import { MAX_CHANGES, objectChanges } from "./object-changes";

describe("objectChanges", () => {
  it("lists what admission added or changed, not what every create sets", () => {
    const sent = { metadata: { name: "a", labels: { x: "1" } }, data: { k: "v" } };
    const stored = {
      metadata: {
        name: "a",
        labels: { x: "1", team: "unassigned" },
        uid: "u",
        resourceVersion: "1",
        creationTimestamp: "t",
        managedFields: [],
      },
      data: { k: "w" },
    };
    expect(objectChanges(sent, stored)).toEqual([
      { path: "metadata.labels.team", change: "added", value: '"unassigned"' },
      { path: "data.k", change: "changed", value: '"w"' },
    ]);
  });
  it("names odd keys and removals", () => {
    expect(objectChanges({ a: { "b.c/d": 1, e: 2 } }, { a: { "b.c/d": 2 } })).toEqual([
      { path: 'a["b.c/d"]', change: "changed", value: "2" },
      { path: "a.e", change: "removed" },
    ]);
  });
  it("is bounded", () => {
    const stored = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    expect(objectChanges({}, stored)).toHaveLength(MAX_CHANGES);
  });
});
