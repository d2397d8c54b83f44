import { describe, expect, it } from "vitest";
import type { AdmissionRequest } from "@/lib/admission/model/request";
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";
import { evaluateMutating, evaluateValidating } from "./policy-eval";

const request: AdmissionRequest = {
  group: "",
  version: "v1",
  resource: "configmaps",
  subresource: "",
  dryRun: false,
  kind: { group: "", version: "v1", kind: "ConfigMap" },
  operation: "CREATE",
  namespace: "a",
  name: "c",
  userInfo: { username: "u", groups: [] },
  object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "a" } },
};
const inputs = (minor?: KubernetesMinor) => ({
  request,
  object: request.object ?? null,
  params: null,
  namespaceObject: null,
  ...(minor ? { minor } : {}),
});

// cel-go v0.26.0 (1.35, 1.36) finds '' at an offset past the end there; v0.29.2 (1.37) at the end.
describe("policies' CEL follows the minor's cel-go", () => {
  const policy = {
    metadata: { name: "p" },
    spec: {
      variables: [{ name: "at", expression: "'abc'.indexOf('', 5)" }],
      validations: [
        { expression: "variables.at == 3", messageExpression: "'at ' + string(variables.at)" },
      ],
      auditAnnotations: [{ key: "at", valueExpression: "string('abc'.indexOf('', 5))" }],
    },
  };
  const binding = { metadata: { name: "b" }, spec: { validationActions: ["Deny"] } };
  it("ValidatingAdmissionPolicy: variables, validations, messages and audit annotations", () => {
    for (const minor of [undefined, "1.37"] as const)
      expect(evaluateValidating(policy, binding, inputs(minor))).toMatchObject({
        decided: true,
        result: "allowed",
        auditAnnotations: { at: "3" },
      });
    for (const minor of ["1.35", "1.36"] as const)
      expect(evaluateValidating(policy, binding, inputs(minor))).toMatchObject({
        decided: true,
        result: "denied",
        failures: ["at 5"],
        auditAnnotations: { at: "5" },
      });
  });
  it("MutatingAdmissionPolicy: the mutations", () => {
    const map = {
      metadata: { name: "m" },
      spec: {
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression:
                "Object{metadata: Object.metadata{labels: {'at': string('abc'.indexOf('', 5))}}}",
            },
          },
        ],
      },
    };
    const at = (minor?: KubernetesMinor) => {
      const r = evaluateMutating(map, inputs(minor));
      return r.decided ? (r.object.metadata as { labels?: Record<string, string> }).labels : r;
    };
    expect(at()).toEqual({ at: "3" });
    expect(at("1.37")).toEqual({ at: "3" });
    expect(at("1.36")).toEqual({ at: "5" });
  });
});
