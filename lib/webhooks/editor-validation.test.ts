import { describe, expect, it } from "vitest";
import { validateDocument } from "@/lib/admission/validate/validate-document";
import { editorMinor, editorValidationOptions } from "./editor-validation";

// k8s.io/api v0.35.4 has MutatingAdmissionPolicy in v1beta1 and v1alpha1 only: 1.35's apiserver
// refuses a v1 binding, 1.36's and 1.37's accept it.
const binding = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: b
spec:
  policyName: p
`;

describe("the editor's minor", () => {
  it("is the cluster's, from its /version's gitVersion (what the overview reads)", () => {
    expect(editorMinor({ gitVersion: "v1.36.3" })).toEqual({ minor: "1.36", source: "cluster" });
    expect(editorMinor({ gitVersion: "v1.35.4" })).toEqual({ minor: "1.35", source: "cluster" });
  });
  it("is the nearest modelled one for a cluster Portcullis does not model, saying what it reported", () => {
    expect(editorMinor({ gitVersion: "v1.30.1" })).toEqual({
      minor: "1.35",
      source: "cluster",
      reported: "v1.30.1",
    });
  });
  it("is the newest while the version is unread or names none", () => {
    expect(editorMinor(undefined)).toEqual({ minor: "1.37", source: "default" });
    expect(editorMinor({ gitVersion: "v0.0.0-master+$Format:%H$" })).toEqual({
      minor: "1.37",
      source: "default",
    });
  });
});

describe("the editor's validation options", () => {
  it("carry the cluster's minor to the validator: a 1.35 cluster's problems are 1.35's", () => {
    const on = (gitVersion: string) =>
      validateDocument(
        binding,
        editorValidationOptions({
          kind: "MutatingAdmissionPolicyBinding",
          name: undefined,
          base: "",
          minor: editorMinor({ gitVersion }).minor,
        }),
      ).issues.map((i) => i.message);
    expect(on("v1.35.4")).toEqual([
      'no kind "MutatingAdmissionPolicyBinding" is registered for version "admissionregistration.k8s.io/v1"',
    ]);
    expect(on("v1.36.3")).toEqual([]);
    expect(on("v1.37.2")).toEqual([]);
  });
  it("name what Apply writes to, and an update's stored text", () => {
    expect(
      editorValidationOptions({
        kind: "ValidatingAdmissionPolicy",
        name: undefined,
        base: "x",
        minor: "1.36",
      }),
    ).toEqual({
      expected: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
      },
      minor: "1.36",
    });
    expect(
      editorValidationOptions({
        kind: "ValidatingAdmissionPolicy",
        name: "p",
        base: "x",
        minor: "1.35",
      }),
    ).toEqual({
      oldText: "x",
      expected: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
        name: "p",
      },
      minor: "1.35",
    });
  });
});
