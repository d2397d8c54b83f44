import { describe, expect, it } from "vitest";
import { applyLiveMessage, type CollectionData } from "./collections";

const obj = (name: string, rv: string) => ({ metadata: { name, resourceVersion: rv } });

describe("applyLiveMessage", () => {
  const base: CollectionData = { resourceVersion: "10", items: [obj("a", "5"), obj("b", "9")] };

  it("replaces the collection on SYNC", () => {
    expect(
      applyLiveMessage(base, {
        collection: "c",
        type: "SYNC",
        resourceVersion: "20",
        items: [obj("z", "20")],
      }),
    ).toEqual({
      resourceVersion: "20",
      items: [obj("z", "20")],
    });
  });

  it("upserts on ADDED/MODIFIED and removes on DELETED, keeping order", () => {
    const added = applyLiveMessage(base, {
      collection: "c",
      type: "ADDED",
      object: obj("c", "11"),
    });
    expect(added?.items.map((i) => i.metadata?.name)).toEqual(["a", "b", "c"]);
    const modified = applyLiveMessage(added, {
      collection: "c",
      type: "MODIFIED",
      object: obj("a", "12"),
    });
    expect(modified?.items[0]).toEqual(obj("a", "12"));
    expect(modified?.resourceVersion).toBe("12");
    const deleted = applyLiveMessage(modified, {
      collection: "c",
      type: "DELETED",
      object: obj("b", "13"),
    });
    expect(deleted?.items.map((i) => i.metadata?.name)).toEqual(["a", "c"]);
  });

  it("leaves the cache alone on ERROR and before the first load", () => {
    const err = { status: 403, reason: "Forbidden", message: "no" };
    expect(applyLiveMessage(base, { collection: "c", type: "ERROR", error: err })).toBe(base);
    expect(
      applyLiveMessage(undefined, { collection: "c", type: "ADDED", object: obj("a", "1") }),
    ).toBeUndefined();
  });
});
