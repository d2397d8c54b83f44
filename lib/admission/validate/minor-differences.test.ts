/**
 * What the validator answers differently for each Kubernetes minor (MinorBehaviour in
 * model/kubernetes-minor.ts), through validateObject as the CLI, the editor and the oracles call
 * it. Each expectation is read from that minor's sources (named per test); the oracles
 * (`npm run test:versions`) hold the same against the minor's apiserver.
 */
import { describe, expect, it } from "vitest";
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";
import type { JsonObject } from "./json";
import { kindInfoFor } from "./kind-info";
import { validateObject } from "./validate-object";

const G = "admissionregistration.k8s.io";
const uid = "6b0e7f5c-0000-4000-8000-000000000001";

function run(
  minor: KubernetesMinor,
  kind: string,
  o: JsonObject,
  old?: JsonObject,
): ReturnType<typeof validateObject> {
  const info = kindInfoFor(`${G}/v1`, kind, minor);
  if (!info) throw new Error(`${kind} v1 is not served by ${minor}`);
  return validateObject(info, { apiVersion: `${G}/v1`, kind, ...o }, old, { minor });
}

const errors = (v: ReturnType<typeof validateObject>) =>
  v.issues
    .filter((i) => i.severity === "error")
    .map((i) => `${i.field}: ${i.message.split("\n")[0]}`);
const warnings = (v: ReturnType<typeof validateObject>) =>
  v.issues.filter((i) => i.severity === "warning").map((i) => `${i.field}: ${i.message}`);

const binding = (spec: JsonObject, name = "b"): JsonObject => ({ metadata: { name }, spec });
const webhooks = (name: string, resources = ["pods"]): JsonObject => ({
  metadata: { name },
  webhooks: [
    {
      name: "a.example.com",
      clientConfig: { url: "https://example.com/hook" },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      rules: [
        {
          operations: ["CREATE"],
          apiGroups: ["authentication.k8s.io"],
          apiVersions: ["v1"],
          resources,
        },
      ],
    },
  ],
});

describe("metadata.ownerReferences (apimachinery pkg/api/validation/objectmeta.go)", () => {
  const refs: JsonObject[] = [
    { apiVersion: "apps", kind: "", name: "", uid },
    { apiVersion: "a/b/c" },
  ];
  const owned = (): JsonObject =>
    binding({ policyName: "p", validationActions: ["Deny"] }, "owned");
  const withRefs = (): JsonObject => {
    const o = owned();
    (o.metadata as JsonObject).ownerReferences = refs;
    return o;
  };

  it("1.37 (v0.37.2): each reference at its index; empty fields required; a bad apiVersion's form", () => {
    expect(errors(run("1.37", "ValidatingAdmissionPolicyBinding", withRefs()))).toEqual([
      "metadata.ownerReferences[0].kind: Required value: must not be empty",
      "metadata.ownerReferences[0].name: Required value: must not be empty",
      'metadata.ownerReferences[1].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>',
      "metadata.ownerReferences[1].kind: Required value: must not be empty",
      "metadata.ownerReferences[1].name: Required value: must not be empty",
      "metadata.ownerReferences[1].uid: Required value: must not be empty",
    ]);
  });

  for (const minor of ["1.36", "1.35"] as const)
    it(`${minor} (v0.${minor.slice(2)}): every reference at the list's path; empty fields invalid ""; no version`, () => {
      const v = run(minor, "ValidatingAdmissionPolicyBinding", withRefs());
      expect(errors(v)).toEqual([
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ]);
      // The Status message lists each distinct error once, as the apiserver's aggregate does.
      expect(v.statusMessage).toBe(
        'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "owned" is invalid: [metadata.ownerReferences.kind: Invalid value: "": must not be empty, metadata.ownerReferences.name: Invalid value: "": must not be empty, metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty, metadata.ownerReferences.uid: Invalid value: "": must not be empty]',
      );
    });

  it('1.36: an empty apiVersion is "version must not be empty", not required', () => {
    const o = owned();
    (o.metadata as JsonObject).ownerReferences = [{ apiVersion: "", kind: "K", name: "n", uid }];
    expect(errors(run("1.36", "ValidatingAdmissionPolicyBinding", o))).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
    ]);
    expect(errors(run("1.37", "ValidatingAdmissionPolicyBinding", o))).toEqual([
      "metadata.ownerReferences[0].apiVersion: Required value: must not be empty",
    ]);
  });
});

describe("ValidatingAdmissionPolicyBinding's declarative validation (registry strategy)", () => {
  it("1.37 (enforced, DeclarativeValidationBeta): the declarative Required values, last", () => {
    expect(
      errors(run("1.37", "ValidatingAdmissionPolicyBinding", binding({ paramRef: { name: "x" } }))),
    ).toEqual([
      "spec.paramRef.parameterNotFoundAction: Required value",
      "spec.policyName: Required value",
      "spec.validationActions: Required value",
    ]);
  });
  for (const minor of ["1.36", "1.35"] as const)
    it(`${minor} (migration checks only in 1.36, none in 1.35): the handwritten errors in their order`, () => {
      expect(
        errors(
          run(minor, "ValidatingAdmissionPolicyBinding", binding({ paramRef: { name: "x" } })),
        ),
      ).toEqual([
        "spec.policyName: Required value",
        "spec.paramRef.parameterNotFoundAction: Required value",
        "spec.validationActions: Required value: at least one validation action is required",
      ]);
    });
});

describe("the reserved .static.k8s.io suffix (static_suffix.go, the kinds' strategies)", () => {
  const name = "x.static.k8s.io";
  const detail =
    'names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';
  const ok = () => binding({ policyName: "p", validationActions: ["Deny"] }, name);

  it("1.37 (ManifestBasedAdmissionControlConfig on): a create is refused, an update warned", () => {
    const create = run("1.37", "ValidatingAdmissionPolicyBinding", ok());
    expect(create.outcome).toBe("invalid");
    expect(errors(create)).toEqual([`metadata.name: Invalid value: "${name}": ${detail}`]);
    const update = run("1.37", "ValidatingAdmissionPolicyBinding", ok(), {
      ...ok(),
      apiVersion: `${G}/v1`,
      kind: "ValidatingAdmissionPolicyBinding",
    });
    expect(update.outcome).toBe("accepted");
    expect(warnings(update)).toEqual([`metadata.name: ${detail}`]);
  });
  it("1.36 (the gate alpha and off): a create is accepted with the warning", () => {
    const create = run("1.36", "ValidatingAdmissionPolicyBinding", ok());
    expect(create.outcome).toBe("accepted");
    expect(warnings(create)).toEqual([`metadata.name: ${detail}`]);
  });
  it("1.35 (no such suffix): accepted without a word", () => {
    const create = run("1.35", "ValidatingAdmissionPolicyBinding", ok());
    expect(create.outcome).toBe("accepted");
    expect(warnings(create)).toEqual([]);
  });
});

describe("rules naming a virtual resource (warnings.go, ExcludeAdmissionWebhookVirtualResources)", () => {
  it("1.37 warns that the rule has no effect", () => {
    const v = run("1.37", "ValidatingWebhookConfiguration", webhooks("w", ["tokenreviews"]));
    expect(v.outcome).toBe("accepted");
    expect(warnings(v)).toEqual([
      "webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect",
    ]);
  });
  for (const minor of ["1.36", "1.35"] as const)
    it(`${minor} calls webhooks for them, and says nothing`, () => {
      const v = run(minor, "ValidatingWebhookConfiguration", webhooks("w", ["tokenreviews"]));
      expect(v.outcome).toBe("accepted");
      expect(warnings(v)).toEqual([]);
    });
});
