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

  it("an inline merged mapping is not aliasing: a large one is read", () => {
    const items = Array.from({ length: 110_000 }, (_, i) => `k${i}: 1`).join(", ");
    const r = read(`b:\n  <<: {${items}}\n`);
    expect(r.problems).toEqual([]);
    expect(Object.keys((r.value as { b: object }).b)).toHaveLength(110_000);
    // A correctness test on a large input, not a timing one: it takes seconds on a busy machine.
  }, 60_000);

  it("a key named __proto__ is an own key", () => {
    const v = read("__proto__: {x: 1}\n").value;
    expect(Object.keys(v as object)).toEqual(["__proto__"]);
    expect(JSON.stringify(v)).toBe('{"__proto__":{"x":1}}');
    expect(read("toString: 1\n").duplicates).toEqual([]);
  });
});

// Each row: YAML text → the JSON sigs.k8s.io/yaml v1.6.0 YAMLToJSON gives (go-yaml v2 decoding),
// or its error.
describe("parseDocuments: scalars like go-yaml v2 through sigs.k8s.io/yaml", () => {
  const rows: [string, string][] = [
    // No timestamps: what was written stays a string.
    ["a: 2024-01-01", '{"a":"2024-01-01"}'],
    ["a: 2001-12-14t21:59:43.10-05:00", '{"a":"2001-12-14t21:59:43.10-05:00"}'],
    ["a: 2024-01-01 10:00:00", '{"a":"2024-01-01 10:00:00"}'],
    ["a: !!timestamp 2001-01-01", '{"a":"2001-01-01"}'],
    ["a: !!timestamp foo", "yaml: cannot decode !!str `foo` as a !!timestamp"],
    [
      "a: !!timestamp 2024-01-01T10:00:00",
      "yaml: cannot decode !!str `2024-01-01T10:00:00` as a !!timestamp",
    ],
    // No base 60.
    ["a: 12:30", '{"a":"12:30"}'],
    ["a: 0:10", '{"a":"0:10"}'],
    ["a: 1:2:3.5", '{"a":"1:2:3.5"}'],
    // Go's integer syntax, underscores dropped.
    ["a: 0o12", '{"a":10}'],
    ["a: 0O12", '{"a":10}'],
    ["a: 012", '{"a":10}'],
    ["a: 08", '{"a":8}'],
    ["a: 0x_1F", '{"a":31}'],
    ["a: +0x1F", '{"a":31}'],
    ["a: -0b11", '{"a":-3}'],
    ["a: 1_000", '{"a":1000}'],
    ["a: 1__0", '{"a":10}'],
    ["a: _1", '{"a":"_1"}'],
    ["a: 0x", '{"a":"0x"}'],
    ["a: 0x1p-2", '{"a":"0x1p-2"}'],
    ["a: 123456789012345678901234", '{"a":1.2345678901234569e+23}'],
    // Floats.
    ["a: 1e3", '{"a":1000}'],
    ["a: .5", '{"a":0.5}'],
    ["a: +.5", '{"a":0.5}'],
    ["a: 1.", '{"a":1}'],
    ["a: 09.5", '{"a":9.5}'],
    ["a: ._5", '{"a":"._5"}'],
    ["a: 1e400", '{"a":"1e400"}'],
    ["a: .inf", "json: unsupported value: +Inf"],
    ["a: -.Inf", "json: unsupported value: -Inf"],
    ["a: .NaN", "json: unsupported value: NaN"],
    // Booleans and null: YAML 1.1's words, exactly these spellings.
    ["a: y", '{"a":true}'],
    ["a: Off", '{"a":false}'],
    ["a: yES", '{"a":"yES"}'],
    ["a: ~", '{"a":null}'],
    ["a: nULL", '{"a":"nULL"}'],
    ["a:", '{"a":null}'],
    // Tags.
    ["a: !!float 10", '{"a":10}'],
    ["a: !!float '1.5'", '{"a":1.5}'],
    ["a: !!int '12'", '{"a":12}'],
    ["a: !!int 1.5", "yaml: cannot decode !!float `1.5` as a !!int"],
    ["a: !!bool 1", "yaml: cannot decode !!int `1` as a !!bool"],
    ["a: !!null x", "yaml: cannot decode !!str `x` as a !!null"],
    ["a: !!str 12", '{"a":"12"}'],
    ["a: ! 12", '{"a":"12"}'],
    ["a: !foo 12", '{"a":"12"}'],
    ["a: !!binary aGVsbG8=", '{"a":"hello"}'],
    ["a: !!binary |\n  aGVs\n  bG8=", '{"a":"hello"}'],
    ['a: !!binary "%%%"', "yaml: !!binary value contains invalid base64 data"],
    ["a: !!map [1]", '{"a":[1]}'],
    ["a: !!omap [{x: 1}, {x: 2}]", '{"a":[{"x":1},{"x":2}]}'],
    // Quoted and block scalars are strings.
    ['a: "12"', '{"a":"12"}'],
    ["a: 'yes'", '{"a":"yes"}'],
    ["a: |\n  12\n", '{"a":"12\\n"}'],
    // Keys: written as sigs.k8s.io/yaml writes them.
    ["y: a", '{"true":"a"}'],
    ["1.5: a", '{"1.5":"a"}'],
    ["1e3: a", '{"1000":"a"}'],
    ["1.0: a", '{"1":"a"}'],
    ["0x1F: a", '{"31":"a"}'],
    ["3.14159265358979: a", '{"3.1415927":"a"}'],
    ["123456789.0: a", '{"1.2345679e+08":"a"}'],
    ["1e6: a", '{"1e+06":"a"}'],
    ["0.00001: a", '{"1e-05":"a"}'],
    [".inf: a", '{".inf":"a"}'],
    ["-9223372036854775808: a", '{"-9223372036854775808":"a"}'],
    ["2024-01-01: a", '{"2024-01-01":"a"}'],
    ["!!binary aGk=: a", '{"hi":"a"}'],
    ["~: a", "unsupported map key of type: %!s(<nil>), key: <nil>"],
    ["null: a", "unsupported map key of type: %!s(<nil>), key: <nil>"],
    ["9223372036854775808: a", "unsupported map key of type: uint64, key: 0x8000000000000000"],
    ["? [x]\n: 1", "yaml: invalid map key: []interface {}"],
    // Aliases.
    ["&k a: 1\n*k : 2", '{"a":2}'],
    ["a: *nope", "yaml: unknown anchor 'nope' referenced"],
  ];
  it.each(rows)("%j → %s", (text, want) => {
    const d = parseDocuments(text)[0]!;
    const got = d.problems.length > 0 ? d.problems[0]!.message : JSON.stringify(d.value);
    expect(got).toBe(want);
  });

  it("a refused scalar is placed on its token", () => {
    const d = parseDocuments("a: 1\nb: .inf\n")[0]!;
    expect(d.problems[0]!.range).toMatchObject({ startLine: 2, startCol: 4 });
  });
});
