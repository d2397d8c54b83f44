import { describe, expect, it } from "vitest";
import { parseDocuments } from "./source-map";

/** The first document's value and problems. */
function read(text: string) {
  const d = parseDocuments(text)[0]!;
  return {
    value: d.value,
    problems: d.problems.map((p) => p.message),
    duplicates: d.duplicates.map((x) => ({
      path: x.segments.join("."),
      line: x.range.startLine,
      merge: x.merge ?? false,
    })),
  };
}

// Expected values are what sigs.k8s.io/yaml v1.6.0 YAMLToJSON (go-yaml v2) gives for the same
// text; `duplicates` are the keys its YAMLToJSONStrict refuses with `key "x" already set in map`.
describe("parseDocuments: merge keys like go-yaml v2", () => {
  it("merges an anchored mapping; no literal `<<` key", () => {
    const r = read("a: &x {p: 1}\nb:\n  <<: *x\n  s: 2\n");
    expect(r.value).toEqual({ a: { p: 1 }, b: { p: 1, s: 2 } });
    expect(JSON.stringify(r.value)).not.toContain("<<");
    expect(r.problems).toEqual([]);
    expect(r.duplicates).toEqual([]);
  });

  it("merges an inline mapping and a sequence of mappings", () => {
    expect(read("b:\n  <<: {p: 1}\n  s: 2\n").value).toEqual({ b: { p: 1, s: 2 } });
    expect(read("b:\n  <<: [{p: 1}, {q: 2}]\n").value).toEqual({ b: { p: 1, q: 2 } });
    expect(read("b:\n  !!merge <<: {p: 1}\n").value).toEqual({ b: { p: 1 } });
  });

  it("a quoted '<<' is an ordinary key", () => {
    expect(read("b:\n  '<<': {p: 1}\n").value).toEqual({ b: { "<<": { p: 1 } } });
  });

  it("an explicit key after the merge wins, and strict decoding refuses it", () => {
    const r = read("a: &x {p: 1, q: 2}\nb:\n  <<: *x\n  q: 3\n");
    expect(r.value).toEqual({ a: { p: 1, q: 2 }, b: { p: 1, q: 3 } });
    expect(r.duplicates).toEqual([{ path: "b.q", line: 4, merge: true }]);
  });

  it("a merge after an explicit key overwrites it (go-yaml sets keys in order)", () => {
    const r = read("a: &x {p: 1, q: 2}\nb:\n  q: 3\n  <<: *x\n");
    expect(r.value).toEqual({ a: { p: 1, q: 2 }, b: { p: 1, q: 2 } });
    expect(r.duplicates).toEqual([{ path: "b.q", line: 4, merge: true }]);
  });

  it("in a sequence of merged mappings the earlier wins; a shared key is set twice", () => {
    const r = read("a: &x {p: 1}\nc: &y {p: 2, r: 1}\nb:\n  <<: [*x, *y]\n");
    expect(r.value).toEqual({ a: { p: 1 }, c: { p: 2, r: 1 }, b: { p: 1, r: 1 } });
    expect(r.duplicates).toEqual([{ path: "b.p", line: 4, merge: true }]);
    expect(read("a: &x {p: 1}\nc: &y {r: 1}\nb:\n  <<: [*x, *y]\n").duplicates).toEqual([]);
  });

  it("a merged mapping's own merge keys apply", () => {
    const r = read("a: &x {<<: {p: 1}, q: 2}\nb:\n  <<: *x\n  s: 3\n");
    expect(r.value).toEqual({ a: { p: 1, q: 2 }, b: { p: 1, q: 2, s: 3 } });
    expect(r.duplicates).toEqual([]);
  });

  it("a key repeated inside an inline merged mapping is a duplicate there", () => {
    const r = read("b:\n  <<: {p: 1, p: 2}\n");
    expect(r.value).toEqual({ b: { p: 2 } });
    expect(r.duplicates).toEqual([{ path: "b.p", line: 2, merge: false }]);
  });

  it("a merge of anything but mappings is refused like go-yaml", () => {
    for (const t of [
      "b:\n  <<: 1\n",
      "b:\n  <<: [1]\n",
      "a: &x [1]\nb:\n  <<: *x\n",
      "b: {<<: ~}\n",
    ])
      expect(read(t).problems).toEqual([
        "yaml: map merge requires map or sequence of maps as the value",
      ]);
  });

  it("a plain repeated key is a duplicate without `merge`; the last value is read", () => {
    const r = read("a: b\na: c\n");
    expect(r.value).toEqual({ a: "c" });
    expect(r.duplicates).toEqual([{ path: "a", line: 2, merge: false }]);
  });

  it("a key named __proto__ is an own key", () => {
    const v = read("__proto__: {x: 1}\n").value;
    expect(Object.keys(v as object)).toEqual(["__proto__"]);
    expect(JSON.stringify(v)).toBe('{"__proto__":{"x":1}}');
    expect(read("toString: 1\n").duplicates).toEqual([]);
  });
});
