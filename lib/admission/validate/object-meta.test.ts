import { describe, expect, it } from "vitest";
import { errorString } from "./field-error";
import { FieldPath } from "./field-path";
import type { JsonObject } from "./json";
import { kindInfoFor } from "./kind-info";
import { validateObjectMeta, validateOwnerReferences } from "./object-meta";
import { validateObject } from "./validate-object";

const owner = (over: JsonObject = {}): JsonObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  name: "web",
  uid: "6b0e7f5c-0000-4000-8000-000000000001",
  ...over,
});
const refErrors = (refs: JsonObject[]) =>
  validateOwnerReferences(refs, FieldPath.root("metadata").child("ownerReferences")).map(
    errorString,
  );

describe("ValidateOwnerReferences", () => {
  it("accepts complete references, one of them the controller", () => {
    expect(refErrors([owner({ controller: true }), owner({ name: "other" })])).toEqual([]);
  });

  it("requires apiVersion, kind, name and uid, in that order", () => {
    expect(refErrors([{}])).toEqual([
      "metadata.ownerReferences[0].apiVersion: Required value: must not be empty",
      "metadata.ownerReferences[0].kind: Required value: must not be empty",
      "metadata.ownerReferences[0].name: Required value: must not be empty",
      "metadata.ownerReferences[0].uid: Required value: must not be empty",
    ]);
    expect(refErrors([owner(), owner({ uid: "" })])).toEqual([
      "metadata.ownerReferences[1].uid: Required value: must not be empty",
    ]);
  });

  it("a null element decodes to an empty reference", () => {
    const meta: JsonObject = { name: "a", ownerReferences: [null] };
    expect(validateObjectMeta(meta).map(errorString)).toHaveLength(4);
  });

  it("apiVersion must parse as <group>/<version> or <version>, with a version", () => {
    const detail = "must be <group>/<version> or <version>";
    expect(refErrors(["a/b/c", "/", "apps/"].map((v) => owner({ apiVersion: v })))).toEqual([
      `metadata.ownerReferences[0].apiVersion: Invalid value: "a/b/c": ${detail}`,
      `metadata.ownerReferences[1].apiVersion: Invalid value: "/": ${detail}`,
      `metadata.ownerReferences[2].apiVersion: Invalid value: "apps/": ${detail}`,
    ]);
    expect(refErrors([owner({ apiVersion: "/v1" }), owner({ apiVersion: "v1" })])).toEqual([]);
  });

  it("a core Event cannot be an owner; the reference prints in Go's field order", () => {
    expect(
      refErrors([
        owner({ apiVersion: "v1", kind: "Event", name: "<e>", blockOwnerDeletion: false }),
      ]),
    ).toEqual([
      'metadata.ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"\\u003ce\\u003e","uid":"6b0e7f5c-0000-4000-8000-000000000001","blockOwnerDeletion":false}: /v1, Kind=Event is disallowed from being an owner',
    ]);
    // "/v1" parses to the same group and version; other groups and a bad apiVersion do not.
    expect(refErrors([owner({ apiVersion: "/v1", kind: "Event" })])).toHaveLength(1);
    expect(
      refErrors([
        owner({ apiVersion: "events.k8s.io/v1", kind: "Event" }),
        owner({ apiVersion: "v1", kind: "event" }),
      ]),
    ).toEqual([]);
    expect(refErrors([owner({ apiVersion: "a/b/c", kind: "Event" })])).toEqual([
      'metadata.ownerReferences[0].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>',
    ]);
  });

  it("only one reference may be the controller: one error per extra controller", () => {
    const refs = [
      owner({ kind: "K", name: "a", controller: true }),
      owner({ kind: "K", name: "b", controller: false }),
      owner({ kind: "K", name: "c", controller: true }),
      owner({ kind: "K", name: "d", controller: true }),
    ];
    const list =
      "[" +
      ["a", "b", "c", "d"]
        .map(
          (n, i) =>
            `{"apiVersion":"apps/v1","kind":"K","name":"${n}","uid":"6b0e7f5c-0000-4000-8000-000000000001","controller":${i !== 1}}`,
        )
        .join(",") +
      "]";
    expect(refErrors(refs)).toEqual([
      `metadata.ownerReferences: Invalid value: ${list}: Only one reference can have Controller set to true. Found "true" in references for K/a and K/c`,
      `metadata.ownerReferences: Invalid value: ${list}: Only one reference can have Controller set to true. Found "true" in references for K/a and K/d`,
    ]);
  });

  it("runs between the annotations and the finalizers in ValidateObjectMeta", () => {
    const meta: JsonObject = {
      name: "a",
      annotations: { "a b": "c" },
      ownerReferences: [owner({ uid: "" })],
      finalizers: ["a b"],
    };
    expect(validateObjectMeta(meta).map((e) => e.field)).toEqual([
      "metadata.annotations",
      "metadata.ownerReferences[0].uid",
      "metadata.finalizers",
    ]);
  });
});

describe("owner references in the apiserver's answer", () => {
  const G = "admissionregistration.k8s.io/v1";
  const binding = (ownerReferences: JsonObject[]): JsonObject => ({
    apiVersion: G,
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: "b", ownerReferences },
    spec: { policyName: "p", validationActions: ["Deny"] },
  });

  it("a binding with an incomplete owner is invalid (not dropped as declaratively covered)", () => {
    const v = validateObject(
      kindInfoFor(G, "ValidatingAdmissionPolicyBinding")!,
      binding([owner({ uid: "", name: "" })]),
    );
    expect(v.outcome).toBe("invalid");
    expect(v.statusMessage).toBe(
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: [metadata.ownerReferences[0].name: Required value: must not be empty, metadata.ownerReferences[0].uid: Required value: must not be empty]',
    );
  });

  it("a webhook configuration owned by an Event is invalid", () => {
    const v = validateObject(kindInfoFor(G, "ValidatingWebhookConfiguration")!, {
      apiVersion: G,
      kind: "ValidatingWebhookConfiguration",
      metadata: {
        name: "cfg",
        ownerReferences: [{ apiVersion: "v1", kind: "Event", name: "e", uid: "u" }],
      },
      webhooks: [],
    });
    expect(v.statusMessage).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "cfg" is invalid: metadata.ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner',
    );
  });

  it("strict decoding covers the reference's fields and their types", () => {
    const k = kindInfoFor(G, "ValidatingAdmissionPolicyBinding")!;
    expect(validateObject(k, binding([owner({ Controller: true })])).statusMessage).toBe(
      'ValidatingAdmissionPolicyBinding in version "v1" cannot be handled as a ValidatingAdmissionPolicyBinding: strict decoding error: unknown field "metadata.ownerReferences[0].Controller"',
    );
    expect(validateObject(k, binding([owner({ controller: "true" })])).statusMessage).toBe(
      'ValidatingAdmissionPolicyBinding in version "v1" cannot be handled as a ValidatingAdmissionPolicyBinding: json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool',
    );
  });
});
