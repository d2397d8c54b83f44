import { describe, expect, it } from "vitest";
import { makeRequest } from "@/lib/admission/model/request";
import type { AdmissionOperation } from "@/lib/k8s/types";
import type { JsonObject } from "@/lib/admission/validate/json";
import { podSecurityVerdict, sameMessage } from "./admission";
import { levelVersionString, policyToEvaluate } from "./labels";

const ENFORCE = "pod-security.kubernetes.io/enforce";
const WARN = "pod-security.kubernetes.io/warn";

const policyOf = (labels: Record<string, string>) => {
  const { policy, errors } = policyToEvaluate(labels);
  return {
    enforce: levelVersionString(policy.enforce),
    audit: levelVersionString(policy.audit),
    warn: levelVersionString(policy.warn),
    errors: errors.map((e) => e.label),
  };
};

describe("policyToEvaluate", () => {
  it("is privileged everywhere without labels", () => {
    expect(policyOf({})).toEqual({
      enforce: "privileged:latest",
      audit: "privileged:latest",
      warn: "privileged:latest",
      errors: [],
    });
  });
  it("lets warn follow a stricter enforce level and its version", () => {
    expect(policyOf({ [ENFORCE]: "baseline", [`${ENFORCE}-version`]: "v1.25" })).toMatchObject({
      enforce: "baseline:v1.25",
      warn: "baseline:v1.25",
    });
    expect(policyOf({ [ENFORCE]: "restricted", [`${WARN}-version`]: "v1.20" })).toMatchObject({
      warn: "restricted:v1.20",
    });
    expect(policyOf({ [ENFORCE]: "baseline", [WARN]: "privileged" })).toMatchObject({
      warn: "privileged:latest",
    });
  });
  it("reads an unknown enforce level as restricted, unknown warn and audit as privileged", () => {
    expect(
      policyOf({ [ENFORCE]: "strict", [WARN]: "x", "pod-security.kubernetes.io/audit": "y" }),
    ).toEqual({
      enforce: "restricted:latest",
      audit: "privileged:latest",
      warn: "privileged:latest",
      errors: [ENFORCE, "pod-security.kubernetes.io/audit", WARN],
    });
  });
  it("reads a version that is not v1.N as latest", () => {
    for (const v of ["1.30", "v1.030", "v2.0", "v1.", "v1.99999999999999999999"])
      expect(policyOf({ [ENFORCE]: "baseline", [`${ENFORCE}-version`]: v })).toMatchObject({
        enforce: "baseline:latest",
        errors: [`${ENFORCE}-version`],
      });
    expect(policyOf({ [ENFORCE]: "baseline", [`${ENFORCE}-version`]: "v1.0" }).enforce).toBe(
      "baseline:v1.0",
    );
  });
});

const pod = (spec: JsonObject, name = "web"): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec,
});

const privilegedPod = pod({
  containers: [{ name: "app", image: "nginx", securityContext: { privileged: true } }],
});

function verdict(
  object: JsonObject,
  labels: Record<string, string> | undefined,
  more: {
    operation?: AdmissionOperation;
    oldObject?: JsonObject;
    subresource?: string;
    name?: string;
  } = {},
) {
  return podSecurityVerdict(
    makeRequest({
      resource: "pods",
      operation: more.operation ?? "CREATE",
      subresource: more.subresource,
      namespace: "team",
      name: more.name,
      object,
      oldObject: more.oldObject,
      kind: { kind: "Pod" },
    }),
    labels,
  );
}

describe("podSecurityVerdict for pods", () => {
  it("refuses a privileged pod under baseline with the apiserver's message", () => {
    const v = verdict(privilegedPod, { [ENFORCE]: "baseline" });
    expect(v?.rejection).toEqual({
      status: 403,
      message:
        'pods "web" is forbidden: violates PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)',
    });
    expect(v?.warnings).toEqual([]);
    expect(v?.auditAnnotations["pod-security.kubernetes.io/enforce-policy"]).toBe(
      "baseline:latest",
    );
  });
  it("names the generated name, its random part unknown", () => {
    const obj = { ...privilegedPod, metadata: { generateName: "web-" } };
    const message = verdict(obj, { [ENFORCE]: "baseline" })?.rejection?.message ?? "";
    expect(message).toMatch(/^pods "web-\?\?\?\?\?" is forbidden: violates PodSecurity/);
    expect(sameMessage(message, message.replace("?????", "x7k2q"))).toBe(true);
    expect(sameMessage(message, message.replace("?????", "x7k2"))).toBe(false);
    expect(
      sameMessage(
        message,
        message.replace("web-?????", "web-x7k2q").replace("baseline", "restricted"),
      ),
    ).toBe(false);
  });
  it("warns instead of refusing under a warn label", () => {
    const v = verdict(privilegedPod, { [WARN]: "baseline" });
    expect(v?.rejection).toBeUndefined();
    expect(v?.warnings).toEqual([
      'would violate PodSecurity "baseline:latest": privileged (container "app" must not set securityContext.privileged=true)',
    ]);
  });
  it("lets everything through a privileged namespace, and gives nothing for an unknown one", () => {
    expect(verdict(privilegedPod, {})?.rejection).toBeUndefined();
    expect(verdict(privilegedPod, undefined)).toBeUndefined();
  });
  it("ignores the subresources the plugin does not evaluate", () => {
    for (const sub of ["status", "binding", "exec", "eviction"])
      expect(
        verdict(privilegedPod, { [ENFORCE]: "baseline" }, { subresource: sub }),
      ).toBeUndefined();
    expect(
      verdict(
        privilegedPod,
        { [ENFORCE]: "baseline" },
        {
          subresource: "ephemeralcontainers",
          operation: "UPDATE",
          oldObject: pod({ containers: [{ name: "app", image: "nginx" }] }),
        },
      )?.rejection,
    ).toBeUndefined();
  });
  it("evaluates an update only when it changes an image or the containers", () => {
    const labels = { [ENFORCE]: "baseline" };
    const sameImage = verdict(privilegedPod, labels, {
      operation: "UPDATE",
      name: "web",
      oldObject: privilegedPod,
    });
    expect(sameImage?.rejection).toBeUndefined();
    const newImage = pod({
      containers: [{ name: "app", image: "nginx:2", securityContext: { privileged: true } }],
    });
    expect(
      verdict(newImage, labels, { operation: "UPDATE", name: "web", oldObject: privilegedPod })
        ?.rejection?.status,
    ).toBe(403);
    const unknown = verdict(newImage, labels, { operation: "UPDATE", name: "web" });
    expect(unknown?.rejection?.status).toBe(403);
    expect(unknown?.undecided).toMatch(/current state is not known/);
  });
  it("reads fields of the wrong type as absent", () => {
    const odd = pod({
      containers: "app",
      volumes: 3,
      securityContext: [],
    } as unknown as JsonObject);
    expect(verdict(odd, { [ENFORCE]: "restricted" })?.rejection).toBeUndefined();
  });
});

describe("podSecurityVerdict for templates and namespaces", () => {
  it("only warns for a Deployment's template", () => {
    const v = podSecurityVerdict(
      makeRequest({
        group: "apps",
        resource: "deployments",
        operation: "CREATE",
        namespace: "team",
        name: "web",
        object: { spec: { template: { spec: privilegedPod["spec"] } } },
        kind: { kind: "Deployment" },
      }),
      { [ENFORCE]: "baseline" },
    );
    expect(v?.subject).toBe("pod-template");
    expect(v?.rejection).toBeUndefined();
    expect(v?.warnings[0]).toMatch(/^would violate PodSecurity "baseline:latest": privileged/);
  });
  it("refuses a namespace whose labels do not parse, with the apiserver's 422", () => {
    const v = podSecurityVerdict(
      makeRequest({
        resource: "namespaces",
        operation: "CREATE",
        name: "team",
        object: { metadata: { name: "team", labels: { [ENFORCE]: "strict" } } },
        kind: { kind: "Namespace" },
      }),
      undefined,
    );
    expect(v?.rejection).toEqual({
      status: 422,
      message:
        'Namespace "team" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    });
  });
  it("says existing pods are checked when an update makes the enforced standard stricter", () => {
    const ns = (labels: Record<string, string>) => ({ metadata: { name: "team", labels } });
    const update = (object: JsonObject, oldObject?: JsonObject) =>
      podSecurityVerdict(
        makeRequest({
          resource: "namespaces",
          operation: "UPDATE",
          name: "team",
          object,
          oldObject,
          kind: { kind: "Namespace" },
        }),
        undefined,
      );
    expect(
      update(ns({ [ENFORCE]: "restricted" }), ns({ [ENFORCE]: "baseline" }))?.undecided,
    ).toMatch(/existing pods against restricted:latest/);
    expect(
      update(ns({ [ENFORCE]: "baseline" }), ns({ [ENFORCE]: "restricted" }))?.undecided,
    ).toBeUndefined();
    expect(update(ns({ [ENFORCE]: "privileged" }), ns({}))?.undecided).toBeUndefined();
    expect(update(ns({ [ENFORCE]: "baseline" }))?.undecided).toMatch(/^if this makes/);
  });
  it("lets a namespace keep labels that already did not parse", () => {
    const object = { metadata: { name: "team", labels: { [ENFORCE]: "strict", x: "1" } } };
    const oldObject = { metadata: { name: "team", labels: { [ENFORCE]: "strict" } } };
    const v = podSecurityVerdict(
      makeRequest({
        resource: "namespaces",
        operation: "UPDATE",
        name: "team",
        object,
        oldObject,
        kind: { kind: "Namespace" },
      }),
      undefined,
    );
    expect(v?.rejection).toBeUndefined();
  });
});
