import { describe, expect, it } from "vitest";
import { applyLiveMessage, applyLiveMessages, nextLiveProblems } from "./collections";
import type { CollectionData } from "@/lib/api/kube-list";
import type { LiveMessage } from "@/lib/api/resources";

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

  it("keeps the held copy on CURRENT (the stream's snapshot is the one the cache holds)", () => {
    expect(
      applyLiveMessage(base, { collection: "c", type: "CURRENT", resourceVersion: "10" }),
    ).toBe(base);
  });

  it("ends a burst of 1,000 mixed events holding exactly what the cluster holds", () => {
    type Obj = { metadata: { name: string; resourceVersion: string }; spec?: number };
    let rv = 1;
    const truth = new Map<string, Obj>();
    const initial: Obj[] = [];
    for (let i = 0; i < 200; i++) {
      const o = { metadata: { name: `h${i}`, resourceVersion: String(rv++) } };
      truth.set(o.metadata.name, o);
      initial.push(o);
    }
    let data: CollectionData<Obj> | undefined = { resourceVersion: String(rv), items: initial };
    // A deterministic mix: creates, updates of existing objects, deletes.
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 1_000; i++) {
      const r = next() % 3;
      const names = [...truth.keys()];
      let msg: LiveMessage<Obj>;
      if (r === 0 || names.length === 0) {
        const o = { metadata: { name: `n${i}`, resourceVersion: String(rv++) } };
        truth.set(o.metadata.name, o);
        msg = { collection: "c", type: "ADDED", object: o };
      } else {
        const name = names[next() % names.length] as string;
        if (r === 1) {
          const o = { metadata: { name, resourceVersion: String(rv++) }, spec: i };
          truth.set(name, o);
          msg = { collection: "c", type: "MODIFIED", object: o };
        } else {
          const o = { metadata: { name, resourceVersion: String(rv++) } };
          truth.delete(name);
          msg = { collection: "c", type: "DELETED", object: o };
        }
      }
      data = applyLiveMessage(data, msg);
    }
    const byName = new Map(data!.items.map((o) => [o.metadata.name, o]));
    expect(byName.size).toBe(data!.items.length);
    expect([...byName.keys()].sort()).toEqual([...truth.keys()].sort());
    for (const [name, o] of truth) expect(byName.get(name)).toEqual(o);
    expect(data!.resourceVersion).toBe(String(rv - 1));
  });
});

describe("applyLiveMessages", () => {
  type Obj = { metadata: { name: string; resourceVersion: string }; spec?: number };
  /** A deterministic burst over `names` existing objects: creates, updates, deletes, re-adds. */
  function burst(count: number, seed: number, withSync: boolean) {
    let rv = 1;
    let s = seed;
    const next = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31);
    const items: Obj[] = [];
    for (let i = 0; i < 300; i++)
      items.push({ metadata: { name: `h${i}`, resourceVersion: `${rv++}` } });
    const data: CollectionData<Obj> = { resourceVersion: `${rv}`, items };
    const msgs: LiveMessage<Obj>[] = [];
    // Names from a small pool, so the same object is deleted and added again within the burst.
    for (let i = 0; i < count; i++) {
      const r = next() % 10;
      const name = `h${next() % 400}`;
      const object = { metadata: { name, resourceVersion: `${rv++}` }, spec: i };
      if (withSync && r === 9 && i % 97 === 0)
        msgs.push({ collection: "c", type: "SYNC", resourceVersion: `${rv}`, items: [object] });
      else if (r === 8) msgs.push({ collection: "c", type: "CURRENT", resourceVersion: `${rv}` });
      else if (r < 3) msgs.push({ collection: "c", type: "DELETED", object });
      else msgs.push({ collection: "c", type: r < 6 ? "ADDED" : "MODIFIED", object });
    }
    return { data, msgs };
  }
  const oneByOne = <T extends { metadata?: { name?: string } }>(
    data: CollectionData<T> | undefined,
    msgs: LiveMessage<T>[],
  ) => msgs.reduce<CollectionData<T> | undefined>((d, m) => applyLiveMessage(d, m), data);

  it("ends a burst of 1,000 events exactly where applying them one by one ends, order included", () => {
    for (const [seed, withSync] of [
      [7, false],
      [11, false],
      [13, true],
      [17, true],
    ] as const) {
      const { data, msgs } = burst(1_000, seed, withSync);
      expect(applyLiveMessages(data, msgs)).toEqual(oneByOne(data, msgs));
    }
  });

  it("moves an object deleted and added again to the end, as one-by-one application does", () => {
    const data: CollectionData = { resourceVersion: "3", items: [obj("a", "1"), obj("b", "2")] };
    const msgs: LiveMessage[] = [
      { collection: "c", type: "DELETED", object: obj("a", "4") },
      { collection: "c", type: "ADDED", object: obj("c", "5") },
      { collection: "c", type: "ADDED", object: obj("a", "6") },
      { collection: "c", type: "MODIFIED", object: obj("b", "7") },
    ];
    const out = applyLiveMessages(data, msgs);
    expect(out?.items).toEqual([obj("b", "7"), obj("c", "5"), obj("a", "6")]);
    expect(out?.resourceVersion).toBe("7");
    expect(out).toEqual(oneByOne(data, msgs));
  });

  it("returns the same collection when nothing in the batch changes it", () => {
    const data: CollectionData = { resourceVersion: "3", items: [obj("a", "1")] };
    const err = { status: 500, reason: "x", message: "y" };
    expect(
      applyLiveMessages(data, [
        { collection: "c", type: "CURRENT", resourceVersion: "3" },
        { collection: "c", type: "SYNC", resourceVersion: "3", items: [] },
        { collection: "c", type: "ERROR", error: err },
      ]),
    ).toBe(data);
    expect(
      applyLiveMessages(undefined, [{ collection: "c", type: "ADDED", object: obj("a", "2") }]),
    ).toBeUndefined();
  });
});

describe("nextLiveProblems", () => {
  const error = (message: string): LiveMessage => ({
    collection: "c",
    type: "ERROR",
    error: { status: 503, reason: "Unreachable", message },
  });
  const sync: LiveMessage = { collection: "c", type: "SYNC", resourceVersion: "2", items: [] };

  it("marks a collection on ERROR and clears it once the hub lists again", () => {
    const none = new Map();
    const failing = nextLiveProblems(none, "c", [error("cannot reach the apiserver")]);
    expect(failing.get("c")).toEqual({
      status: 503,
      reason: "Unreachable",
      message: "cannot reach the apiserver",
    });
    // Events of other collections, and the same error again, change nothing.
    expect(nextLiveProblems(failing, "c", [error("cannot reach the apiserver")])).toBe(failing);
    expect(nextLiveProblems(failing, "d", [sync])).toBe(failing);
    expect(nextLiveProblems(failing, "c", [sync]).size).toBe(0);
    expect(
      nextLiveProblems(failing, "c", [{ collection: "c", type: "CURRENT", resourceVersion: "2" }])
        .size,
    ).toBe(0);
    // Within one batch, the last word counts.
    expect(nextLiveProblems(none, "c", [sync, error("x")]).get("c")?.message).toBe("x");
    expect(nextLiveProblems(none, "c", [error("x"), sync]).size).toBe(0);
    // An object event alone does not clear it (only a fresh snapshot proves the data current).
    const added: LiveMessage = { collection: "c", type: "ADDED", object: obj("a", "3") };
    expect(nextLiveProblems(failing, "c", [added])).toBe(failing);
    expect(none.size).toBe(0);
  });
});
