import { describe, expect, it } from "vitest";
import { parseEditorYaml, readEditorYaml } from "./yaml-text";

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
