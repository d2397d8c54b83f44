import { describe, expect, it } from "vitest";
import { validateDocument, validateDocuments } from "./validate-document";

const good = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: cfg
webhooks:
- name: hook.example.com
  clientConfig:
    url: https://127.0.0.1:9443/x
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [pods]
  sideEffects: None
  admissionReviewVersions: [v1]
`;

describe("validateDocument: positions", () => {
  it("a valid document has no issues and reports kind, apiVersion and name", () => {
    const r = validateDocument(good);
    expect(r).toMatchObject({
      kind: "ValidatingWebhookConfiguration",
      apiVersion: "admissionregistration.k8s.io/v1",
      name: "cfg",
    });
    expect(r.issues).toEqual([]);
  });

  it("an invalid value points at the value token (timeoutSeconds: 31)", () => {
    const r = validateDocument(good + "  timeoutSeconds: 31\n");
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({
      field: "webhooks[0].timeoutSeconds",
      type: "FieldValueInvalid",
      source: "admission",
      range: { startLine: 16, startCol: 19, endLine: 16, endCol: 21 },
    });
  });

  it("a list element points at the element (resources[1])", () => {
    const r = validateDocument(
      good.replace("resources: [pods]", 'resources: ["pods/*", pods/status]'),
    );
    expect(r.issues[0]).toMatchObject({
      field: "webhooks[0].rules[0].resources[1]",
      range: { startLine: 13, startCol: 27 },
    });
  });

  it("a missing field points at the nearest existing parent (sideEffects → webhooks[0])", () => {
    const r = validateDocument(good.replace("  sideEffects: None\n", ""));
    expect(r.issues[0]).toMatchObject({
      field: "webhooks[0].sideEffects",
      range: { startLine: 6, startCol: 3 },
    });
  });

  it("strict decoding: unknown field points at its key, with the apiserver's message", () => {
    const r = validateDocument(good + "  bogus: 1\n");
    expect(r.issues).toEqual([
      expect.objectContaining({
        field: "webhooks[0].bogus",
        type: "FieldValueUnknown",
        message: 'unknown field "webhooks[0].bogus"',
        source: "schema",
        range: { startLine: 16, startCol: 3, endLine: 16, endCol: 8 },
      }),
    ]);
  });

  it("strict decoding: duplicate key points at the second occurrence", () => {
    const r = validateDocument(good.replace("  name: cfg\n", "  name: cfg\n  name: cfg2\n"));
    expect(r.issues[0]).toMatchObject({
      field: "metadata.name",
      type: "FieldValueDuplicate",
      message: 'duplicate field "metadata.name"',
      range: { startLine: 5, startCol: 3 },
    });
  });

  it("strict decoding: wrong type gives Go's UnmarshalTypeError text", () => {
    const r = validateDocument(good + '  timeoutSeconds: "10"\n');
    expect(r.issues[0]).toMatchObject({
      field: "webhooks[0].timeoutSeconds",
      type: "FieldValueTypeInvalid",
      message:
        "json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32",
    });
  });

  it("YAML 1.1 like sigs.k8s.io/yaml: an unquoted `y` is a boolean", () => {
    const r = validateDocument(good.replace("sideEffects: None", "sideEffects: y"));
    expect(r.issues[0]).toMatchObject({
      field: "webhooks[0].sideEffects",
      type: "FieldValueTypeInvalid",
    });
  });

  it("merge keys are read like sigs.k8s.io/yaml: a merged clientConfig is accepted", () => {
    const text =
      good.replace("  clientConfig:\n", "  clientConfig: &cc\n") +
      "- name: other.example.com\n  clientConfig:\n    <<: *cc\n  sideEffects: None\n  admissionReviewVersions: [v1]\n";
    const r = validateDocument(text);
    expect(r.issues).toEqual([]);
  });

  it("a key both merged and written is refused like the apiserver's strict YAML decoding", () => {
    const text =
      good.replace("- name: hook.example.com", "- &h\n  name: hook.example.com") +
      "- <<: *h\n  name: other.example.com\n";
    const r = validateDocument(text);
    expect(r.issues).toEqual([
      expect.objectContaining({
        field: "webhooks[1].name",
        type: "FieldValueDuplicate",
        source: "schema",
        range: expect.objectContaining({ startLine: 18, startCol: 3 }),
      }),
    ]);
  });

  it("no timestamps and no base 60, like sigs.k8s.io/yaml: dates and times stay strings", () => {
    const meta =
      "  name: 2024-01-01\n  annotations:\n    at: 12:30\n    since: 2024-01-01\n  labels:\n    day: 2024-01-01\n";
    const r = validateDocument(good.replace("  name: cfg\n", meta));
    expect(r.issues).toEqual([]);
    expect(r.name).toBe("2024-01-01");
    expect(r.defaulted).toMatchObject({
      metadata: {
        annotations: { at: "12:30", since: "2024-01-01" },
        labels: { day: "2024-01-01" },
      },
    });
  });

  it("`timeoutSeconds: 0:10` is a string to the apiserver, not 10", () => {
    const r = validateDocument(good + "  timeoutSeconds: 0:10\n");
    expect(r.issues[0]).toMatchObject({
      field: "webhooks[0].timeoutSeconds",
      type: "FieldValueTypeInvalid",
      message:
        "json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32",
    });
  });

  it("`.inf` cannot be sent as JSON: a YAML error on its token", () => {
    const r = validateDocument(good + "  timeoutSeconds: .inf\n");
    expect(r.issues).toEqual([
      expect.objectContaining({
        source: "yaml",
        type: "YAMLDecode",
        message: "json: unsupported value: +Inf",
        range: expect.objectContaining({ startLine: 16, startCol: 19 }),
      }),
    ]);
  });

  it("JSON input is accepted and positioned", () => {
    const json = JSON.stringify(
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: "b" },
        spec: { policyName: "p", validationActions: ["Deny", "Warn"] },
      },
      null,
      2,
    );
    const r = validateDocument(json);
    expect(r.issues.map((i) => i.field)).toEqual(["spec.validationActions"]);
    expect(r.issues[0]!.range?.startLine).toBe(9);
  });

  it("update ratcheting through oldText", () => {
    const some = good.replace("sideEffects: None", "sideEffects: Some");
    expect(validateDocument(some).issues).toHaveLength(1);
    expect(
      validateDocument(some, { oldText: good.replace("sideEffects: None", "sideEffects: Unknown") })
        .issues,
    ).toEqual([]);
  });
});

describe("validateDocument: the target the document is written to", () => {
  const expected = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    name: "cfg",
  };

  it("a document matching its target has no issues", () => {
    expect(validateDocument(good, { oldText: good, expected }).issues).toEqual([]);
  });

  it("a changed name of a stored object is marked on metadata.name", () => {
    const r = validateDocument(good.replace("name: cfg", "name: other"), {
      oldText: good,
      expected,
    });
    expect(r.issues).toEqual([
      expect.objectContaining({
        field: "metadata.name",
        message: 'metadata.name "other" does not match "cfg": use rename to change the name',
        severity: "error",
        range: expect.objectContaining({ startLine: 4, startCol: 9 }),
      }),
    ]);
  });

  it("another apiVersion is marked with the apiserver's message", () => {
    const r = validateDocument(
      good.replace("admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1"),
      { oldText: good, expected },
    );
    expect(r.issues).toContainEqual(
      expect.objectContaining({
        field: "apiVersion",
        message:
          "the API version in the data (admissionregistration.k8s.io/v1beta1) does not match the expected API version (admissionregistration.k8s.io/v1)",
        range: expect.objectContaining({ startLine: 1, startCol: 13 }),
      }),
    );
  });

  it("another kind is marked on kind", () => {
    const r = validateDocument(
      good.replace("kind: ValidatingWebhookConfiguration", "kind: MutatingWebhookConfiguration"),
      { oldText: good, expected },
    );
    expect(r.issues).toContainEqual(
      expect.objectContaining({
        field: "kind",
        message: "kind MutatingWebhookConfiguration does not match ValidatingWebhookConfiguration",
        range: expect.objectContaining({ startLine: 2 }),
      }),
    );
  });

  it("a new object may take any name; absent fields are filled from the URL", () => {
    const create = { apiVersion: expected.apiVersion, kind: expected.kind };
    expect(
      validateDocument(good.replace("name: cfg", "name: fresh"), { expected: create }).issues,
    ).toEqual([]);
    expect(
      validateDocument(good.replace("  name: cfg\n", "  generateName: cfg-\n"), { expected })
        .issues,
    ).toEqual([]);
  });
});

describe("validateDocument: malformed and hostile input", () => {
  it("malformed YAML gives a yaml-source issue at the parser's position", () => {
    const r = validateDocument("apiVersion: v1\nkind: [unclosed\n");
    expect(r.issues[0]).toMatchObject({ source: "yaml", type: "YAMLSyntax", severity: "error" });
    expect(r.issues[0]!.range!.startLine).toBeGreaterThanOrEqual(2);
  });

  it("documents over 3 MiB are refused like the apiserver's request limit", () => {
    const r = validateDocument("a: " + "x".repeat(3 * 1024 * 1024));
    expect(r.issues[0]).toMatchObject({
      type: "RequestEntityTooLarge",
      message: "Request entity too large: limit is 3145728",
    });
  });

  it("an alias bomb stops at the node budget instead of expanding", () => {
    let y = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 10; i++)
      y += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(", ")}]\n`;
    const started = Date.now();
    const r = validateDocument(y);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.issues[0]).toMatchObject({
      source: "yaml",
      message: "document contains excessive aliasing",
    });
  });

  it("deep nesting is refused without a stack overflow", () => {
    const r = validateDocument("a: " + "[".repeat(5000) + "]".repeat(5000));
    expect(r.issues[0]).toMatchObject({ source: "yaml" });
  });

  it("an unknown kind is reported on `kind`", () => {
    const r = validateDocument("apiVersion: v1\nkind: Pod\n");
    expect(r.issues[0]).toMatchObject({ field: "apiVersion", source: "schema" });
  });
});

describe("validateDocuments", () => {
  it("returns one result per document with its index", () => {
    const rs = validateDocuments(
      good + "---\n" + good.replace("hook.example.com", "a.b") + "---\n",
    );
    expect(rs.map((r) => [r.index, r.issues.length])).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });
});

describe("the minor's scheme", () => {
  // k8s.io/api v0.35.4 has MutatingAdmissionPolicy in v1beta1 and v1alpha1 only; v1 came in 1.36.
  const map = (apiVersion: string) => `apiVersion: ${apiVersion}
kind: MutatingAdmissionPolicyBinding
metadata:
  name: b
spec:
  policyName: p
`;
  it("MutatingAdmissionPolicy v1 is not registered in 1.35, and is from 1.36", () => {
    const v1 = map("admissionregistration.k8s.io/v1");
    expect(validateDocument(v1, { minor: "1.35" }).issues[0]?.message).toBe(
      'no kind "MutatingAdmissionPolicyBinding" is registered for version "admissionregistration.k8s.io/v1"',
    );
    expect(validateDocument(v1, { minor: "1.36" }).issues).toEqual([]);
    expect(validateDocument(v1).issues).toEqual([]);
    expect(
      validateDocuments(map("admissionregistration.k8s.io/v1beta1"), { minor: "1.35" })[0]?.issues,
    ).toEqual([]);
  });
});
