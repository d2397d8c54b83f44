import { describe, expect, it } from "vitest";
import { parseEditorYaml, readEditorYaml, setYamlPath, toEditorYaml } from "./yaml-text";

const cfg = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: cfg
webhooks: []
`;

describe("readEditorYaml: what Dry run and Apply send", () => {
  it("a document that reads is sent as read", () => {
    expect(readEditorYaml(cfg)).toEqual({
      ok: true,
      value: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "cfg" },
        webhooks: [],
      },
    });
  });

  it("a repeated key is refused, not sent with its last value", () => {
    const text = cfg.replace("  name: cfg\n", "  name: cfg\n  name: other\n");
    expect(parseEditorYaml(text)).toBeUndefined();
    expect(readEditorYaml(text)).toEqual({
      ok: false,
      error: "metadata.name is set twice (line 5): a key may be given once",
    });
  });

  it("a key both merged and written is refused (the apiserver's strict YAML decoding does)", () => {
    const text = "a: &x {p: 1}\nb:\n  <<: *x\n  p: 2\n";
    expect(parseEditorYaml(text)).toBeUndefined();
    expect(readEditorYaml(text)).toEqual({
      ok: false,
      error:
        "b.p is set both by a merge key (<<) and another setting (line 4): a key may be given once",
    });
  });

  it("several repeated keys are counted; paths show list indexes", () => {
    const text = "l:\n- a: 1\n  a: 2\n  b: 1\n  b: 2\n";
    expect(readEditorYaml(text)).toEqual({
      ok: false,
      error: "l[0].a is set twice (line 3) and 1 more key: a key may be given once",
    });
  });

  it("a parse failure says where", () => {
    expect(readEditorYaml("a: 1\nb: .inf\n")).toEqual({
      ok: false,
      error: "line 2: json: unsupported value: +Inf",
    });
    expect(readEditorYaml("")).toEqual({ ok: false, error: "the document is empty" });
  });
});

describe("toEditorYaml and setYamlPath: text the apiserver's YAML path reads back", () => {
  // Strings go-yaml v2 would read as something else if written plain.
  const tricky = [
    "2024-01-01",
    "12:30",
    "0o17",
    "0O17",
    "0B11",
    "0x1F",
    "1_000",
    "012",
    "08",
    "1e3",
    ".5",
    ".inf",
    "y",
    "on",
    "~",
    "null",
    "<<",
    "=",
    "",
    "9223372036854775808",
  ];

  it("every string, as a value and as a key, reads back as written", () => {
    const annotations: Record<string, string> = {};
    tricky.forEach((s, i) => {
      annotations[`k${i}`] = s;
      annotations[s] = "key";
    });
    const o = { apiVersion: "v1", kind: "X", metadata: { annotations } };
    expect(readEditorYaml(toEditorYaml(o))).toEqual({ ok: true, value: o });
  });

  it("a form edit rewrites nothing else", () => {
    const text = [
      "apiVersion: v1 # kept",
      "metadata:",
      "  annotations:",
      "    at: 2001-12-14t21:59:43.10-05:00",
      "    since: 2024-01-01 10:00:00",
      "    t: 0:10",
      "    hex: 0x1F",
      "    n: 1_000",
      "    b: !!binary aGk=",
      "",
    ].join("\n");
    const out = setYamlPath(text, ["metadata", "name"], "cfg");
    expect(out).toBe(text + "  name: cfg\n");
  });

  it("a string set by the form is quoted where go-yaml would read it otherwise", () => {
    const out = setYamlPath("metadata: {}\n", ["metadata", "labels"], { v: "0o17", w: "n" });
    expect(parseEditorYaml(out)).toEqual({ metadata: { labels: { v: "0o17", w: "n" } } });
  });

  it("missing parents are created as plain mappings", () => {
    const out = setYamlPath("apiVersion: v1\n", ["metadata", "labels", "a"], "b");
    expect(out).toBe("apiVersion: v1\nmetadata:\n  labels:\n    a: b\n");
  });
});
