import { describe, expect, it } from "vitest";
import { ListBody } from "./list-body";

type Obj = { metadata: { name: string; namespace?: string; resourceVersion?: string }; x?: number };

const obj = (name: string, x = 0, namespace?: string): Obj => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  x,
});
const key = (o: Obj) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
const mapOf = (...os: Obj[]) => new Map(os.map((o) => [key(o), o]));
const HEAD = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfigurationList",
};

describe("ListBody", () => {
  it("serialises a List in the apiserver's order (namespace, then name)", () => {
    const body = new ListBody<Obj>();
    body.reset(HEAD);
    const items = mapOf(obj("b"), obj("a", 0, "ns2"), obj("c", 0, "ns1"), obj("a"));
    const list = JSON.parse(body.serve(items, "42").json.toString("utf8")) as {
      kind: string;
      apiVersion: string;
      metadata: { resourceVersion: string };
      items: Obj[];
    };
    expect(list.kind).toBe("ValidatingWebhookConfigurationList");
    expect(list.apiVersion).toBe("admissionregistration.k8s.io/v1");
    expect(list.metadata.resourceVersion).toBe("42");
    expect(list.items.map(key)).toEqual(["/a", "/b", "ns1/c", "ns2/a"]);
  });

  it("serves the same bytes until something changes, and only the change is new", () => {
    const body = new ListBody<Obj>();
    body.reset(HEAD);
    const items = mapOf(obj("a", 1), obj("b", 1));
    const first = body.serve(items, "1");
    expect(body.serve(items, "1")).toBe(first);

    items.set("/a", obj("a", 2));
    body.changed("/a");
    const second = body.serve(items, "2");
    expect(second).not.toBe(first);
    expect(JSON.parse(second.json.toString()).items).toEqual([obj("a", 2), obj("b", 1)]);

    items.delete("/b");
    body.changed("/b");
    items.set("/0", obj("0"));
    body.changed("/0");
    expect(JSON.parse(body.serve(items, "3").json.toString()).items).toEqual([
      obj("0"),
      obj("a", 2),
    ]);
  });

  it("keeps the items' text when only the resourceVersion moves (a bookmark)", () => {
    const body = new ListBody<Obj>();
    body.reset(HEAD);
    const items = mapOf(obj("a"));
    const before = body.serve(items, "5");
    // Mutating the kept object without saying so shows whether its text was made again.
    (items.get("/a") as Obj).x = 99;
    const after = body.serve(items, "9");
    expect(JSON.parse(after.json.toString()).metadata.resourceVersion).toBe("9");
    expect(JSON.parse(after.json.toString()).items).toEqual(
      JSON.parse(before.json.toString()).items,
    );
  });

  it("forgets every item's text on a relist", () => {
    const body = new ListBody<Obj>();
    body.reset(HEAD);
    const items = mapOf(obj("a", 1));
    body.serve(items, "1");
    items.set("/a", obj("a", 2));
    body.reset({ ...HEAD, kind: "MutatingWebhookConfigurationList" });
    const list = JSON.parse(body.serve(items, "1").json.toString());
    expect(list.kind).toBe("MutatingWebhookConfigurationList");
    expect(list.items).toEqual([obj("a", 2)]);
  });

  it("serves an empty collection as an empty List", () => {
    const body = new ListBody<Obj>();
    body.reset(HEAD);
    expect(JSON.parse(body.serve(new Map(), "7").json.toString()).items).toEqual([]);
  });
});
