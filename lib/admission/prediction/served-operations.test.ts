import { describe, expect, it } from "vitest";
import { predict } from "@/lib/admission/prediction/predict";
import { makeRequest } from "@/lib/admission/model/request";
import type { AdmissionOperation } from "@/lib/k8s/types";
import {
  METHOD_NOT_ALLOWED,
  PATH_NOT_FOUND,
  reachesAdmission,
  unservedOperation,
} from "@/lib/admission/prediction/served-operations";
import { hook } from "@/lib/admission/model/test-helpers";
import type { AdmissionSnapshot, DiscoveryResource } from "@/lib/admission/model/snapshot";

const ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const STATUS = ["get", "patch", "update"];

/** As the 1.37 apiserver's discovery lists them (GET /api/v1). */
const pods: DiscoveryResource = {
  group: "",
  version: "v1",
  resource: "pods",
  kind: "Pod",
  namespaced: true,
  verbs: ALL,
  subresources: [
    { name: "status", kind: { group: "", version: "v1", kind: "Pod" }, verbs: STATUS },
    {
      name: "eviction",
      kind: { group: "policy", version: "v1", kind: "Eviction" },
      verbs: ["create"],
    },
    {
      name: "exec",
      kind: { group: "", version: "v1", kind: "PodExecOptions" },
      verbs: ["create", "get"],
    },
    {
      name: "proxy",
      kind: { group: "", version: "v1", kind: "PodProxyOptions" },
      verbs: ["create", "delete", "get", "patch", "update"],
    },
    { name: "log", kind: { group: "", version: "v1", kind: "Pod" }, verbs: ["get"] },
    { name: "legacy" },
  ],
};
const componentstatuses: DiscoveryResource = {
  group: "",
  version: "v1",
  resource: "componentstatuses",
  kind: "ComponentStatus",
  namespaced: false,
  verbs: ["get", "list"],
};
const unknownVerbs: DiscoveryResource = { ...componentstatuses, verbs: undefined };

const req = (operation: AdmissionOperation, subresource = "", resource = "pods") =>
  makeRequest({
    resource,
    subresource,
    operation,
    namespace: resource === "pods" ? "default" : "",
    name: "web",
    kind: { kind: resource === "pods" ? "Pod" : "ComponentStatus" },
    object: operation === "DELETE" ? null : { metadata: { name: "web" } },
  });

describe("unservedOperation", () => {
  it.each([
    ["DELETE", "status"],
    ["CREATE", "status"],
    ["UPDATE", "eviction"],
    ["DELETE", "eviction"],
    ["CREATE", "log"],
  ] as const)("%s pods/%s: refused by the router with 405 before admission", (op, sub) => {
    const u = unservedOperation(req(op, sub), pods);
    expect(u?.rejection).toEqual({ plugin: "routing", ...METHOD_NOT_ALLOWED });
    expect(u?.exclusion.code).toBe("method-not-allowed");
    expect(u?.exclusion.message).toContain(`on pods/${sub} (discovery lists`);
  });

  it("a resource that serves only create has no path for a name: 404 from the router", () => {
    const tokenreviews: DiscoveryResource = { ...componentstatuses, verbs: ["create"] };
    for (const op of ["UPDATE", "DELETE"] as const)
      expect(unservedOperation(req(op, "", "componentstatuses"), tokenreviews)?.rejection).toEqual({
        plugin: "routing",
        ...PATH_NOT_FOUND,
      });
    expect(unservedOperation(req("CREATE", "", "componentstatuses"), tokenreviews)).toBeUndefined();
  });

  it("a resource that serves only reads refuses every write", () => {
    for (const op of ["CREATE", "UPDATE", "DELETE"] as const)
      expect(
        unservedOperation(req(op, "", "componentstatuses"), componentstatuses)?.rejection,
      ).toEqual({ plugin: "routing", ...METHOD_NOT_ALLOWED });
  });

  it("a custom resource's status and scale refuse other verbs in the CRD handler's words", () => {
    const things: DiscoveryResource = {
      group: "example.com",
      version: "v1",
      resource: "things",
      kind: "Thing",
      namespaced: true,
      verbs: ALL,
      subresources: [
        { name: "status", verbs: STATUS },
        { name: "scale", verbs: STATUS },
      ],
      custom: true,
    };
    const thing = (operation: AdmissionOperation, subresource: string) =>
      makeRequest({
        group: "example.com",
        resource: "things",
        subresource,
        operation,
        namespace: "default",
        name: "t1",
        kind: { group: "example.com", kind: "Thing" },
        object: operation === "DELETE" ? null : { metadata: { name: "t1" } },
      });
    expect(unservedOperation(thing("CREATE", "status"), things)?.rejection).toEqual({
      plugin: "routing",
      status: 405,
      message: 'create is not supported on resources of kind "things.example.com"',
    });
    expect(unservedOperation(thing("DELETE", "scale"), things)?.rejection).toEqual({
      plugin: "routing",
      status: 405,
      message: 'delete is not supported on resources of kind "things.example.com"',
    });
    expect(unservedOperation(thing("CREATE", "other"), things)?.rejection).toEqual({
      plugin: "routing",
      status: 404,
      message: 'things.example.com "t1" not found',
    });
    expect(unservedOperation(thing("UPDATE", "status"), things)).toBeUndefined();
    // The same paths of a built-in resource: the router's words.
    expect(
      unservedOperation(thing("CREATE", "status"), { ...things, custom: false })?.rejection,
    ).toEqual({ plugin: "routing", ...METHOD_NOT_ALLOWED });
  });

  it.each([
    ["CREATE", ""],
    ["UPDATE", ""],
    ["DELETE", ""],
    ["UPDATE", "status"],
    ["CREATE", "eviction"],
    ["CONNECT", "exec"],
    ["CONNECT", "proxy"],
  ] as const)("%s pods/%s reaches admission", (op, sub) => {
    expect(unservedOperation(req(op, sub), pods)).toBeUndefined();
    expect(reachesAdmission(op, pods, sub)).toBe(true);
  });

  it("a connect subresource is admitted as CONNECT whatever the method: other operations never happen", () => {
    for (const op of ["CREATE", "UPDATE", "DELETE"] as const) {
      const u = unservedOperation(req(op, "proxy"), pods);
      expect(u?.rejection).toBeUndefined();
      expect(u?.exclusion.code).toBe("operation-never-sent");
      expect(u?.exclusion.message).toContain(`admitted as CONNECT, never as ${op}`);
      expect(reachesAdmission(op, pods, "proxy")).toBe(false);
    }
  });

  it("CONNECT reaches only connect subresources", () => {
    for (const sub of ["", "status", "eviction"]) {
      expect(unservedOperation(req("CONNECT", sub), pods)?.exclusion.code).toBe(
        "operation-never-sent",
      );
      expect(reachesAdmission("CONNECT", pods, sub)).toBe(false);
    }
  });

  it("without verbs from discovery nothing is decided (the offline table, older snapshots)", () => {
    for (const op of ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const) {
      expect(unservedOperation(req(op, "", "componentstatuses"), unknownVerbs)).toBeUndefined();
      expect(unservedOperation(req(op, "legacy"), pods)).toBeUndefined();
      expect(unservedOperation(req(op, "status"), undefined)).toBeUndefined();
    }
    // The one rule that needs no verbs: CONNECT only on a subresource.
    expect(reachesAdmission("CONNECT", unknownVerbs, "")).toBe(false);
    expect(reachesAdmission("CONNECT", pods, "legacy")).toBe(true);
    expect(reachesAdmission("DELETE", unknownVerbs, "")).toBe(true);
  });
});

describe("predict: a request its target does not serve reaches no hook", () => {
  const any = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];
  const snap: AdmissionSnapshot = {
    discovery: [pods],
    validatingWebhookConfigurations: [
      { metadata: { name: "v" }, webhooks: [hook("v.example.com", { rules: any })] },
    ],
    validatingAdmissionPolicies: [
      {
        metadata: { name: "p" },
        spec: { matchConstraints: { resourceRules: any }, validations: [{ expression: "true" }] },
      },
    ],
    validatingAdmissionPolicyBindings: [
      { metadata: { name: "pb" }, spec: { policyName: "p", validationActions: ["Deny"] } },
    ],
  };

  it("DELETE pods/status: 405 from the router, every hook excluded", () => {
    const p = predict(req("DELETE", "status"), snap).prediction;
    expect(p.rejectedBeforeHooks).toEqual({ plugin: "routing", ...METHOD_NOT_ALLOWED });
    expect(p.calls).toEqual([]);
    expect(p.exclusions.webhooks?.code).toBe("method-not-allowed");
    expect(p.exclusions.policies?.code).toBe("method-not-allowed");
    expect(p.skips.map((s) => `${s.hook.name}:${s.reason.code}`).sort()).toEqual([
      "pb:excluded",
      "v.example.com:excluded",
    ]);
  });

  it("UPDATE pods/proxy: never sent as an UPDATE, no rejection to predict", () => {
    const p = predict(req("UPDATE", "proxy"), snap).prediction;
    expect(p.rejectedBeforeHooks).toBeUndefined();
    expect(p.calls).toEqual([]);
    expect(p.exclusions.webhooks?.code).toBe("operation-never-sent");
  });

  it("UPDATE pods/status and CONNECT pods/exec reach the catch-all hooks", () => {
    for (const r of [req("UPDATE", "status"), req("CONNECT", "exec")]) {
      const p = predict(r, snap).prediction;
      expect(p.rejectedBeforeHooks).toBeUndefined();
      expect(p.calls.map((c) => c.hook.name)).toContain("v.example.com");
    }
  });
});

describe("a subresource the resource does not serve: no route, 404 for every method", () => {
  const any = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];
  const configmaps: DiscoveryResource = {
    group: "",
    version: "v1",
    resource: "configmaps",
    kind: "ConfigMap",
    namespaced: true,
    verbs: ALL,
    subresources: [],
  };
  const snap: AdmissionSnapshot = {
    discovery: [pods, configmaps],
    mutatingWebhookConfigurations: [
      { metadata: { name: "m" }, webhooks: [hook("m.example.com", { rules: any })] },
    ],
    validatingWebhookConfigurations: [
      { metadata: { name: "v" }, webhooks: [hook("v.example.com", { rules: any })] },
    ],
  };
  const cm = (operation: AdmissionOperation, subresource: string) =>
    makeRequest({
      resource: "configmaps",
      subresource,
      operation,
      namespace: "default",
      name: "web",
      kind: { kind: "ConfigMap" },
      object: operation === "DELETE" ? null : { metadata: { name: "web" } },
    });

  it.each([
    ["UPDATE", "status", "configmaps"],
    ["CREATE", "status", "configmaps"],
    ["DELETE", "bogus", "configmaps"],
    ["CONNECT", "bogus", "configmaps"],
    ["UPDATE", "bogus", "pods"],
    ["CONNECT", "shell", "pods"],
  ] as const)("%s %s/%s: refused by the router before admission", (op, sub, resource) => {
    const r = resource === "pods" ? req(op, sub) : cm(op, sub);
    const p = predict(r, snap).prediction;
    expect(p.rejectedBeforeHooks).toEqual({ plugin: "routing", ...PATH_NOT_FOUND });
    expect(p.calls).toEqual([]);
    expect(p.exclusions.webhooks?.code).toBe("subresource-not-served");
    expect(p.exclusions.webhooks?.message).toContain(`${resource} has no ${sub} subresource`);
    expect(p.skips.map((s) => `${s.hook.name}:${s.reason.code}`).sort()).toEqual([
      "m.example.com:excluded",
      "v.example.com:excluded",
    ]);
  });

  it("the subresources the resource serves still reach the hooks", () => {
    const p = predict(req("UPDATE", "status"), snap).prediction;
    expect(p.rejectedBeforeHooks).toBeUndefined();
    expect(p.calls.map((c) => c.hook.name)).toEqual(["m.example.com", "v.example.com"]);
  });

  it("without discovery read from the cluster (no verbs listed), a subresource is not judged", () => {
    const partial: DiscoveryResource = { ...configmaps, verbs: undefined };
    expect(unservedOperation(cm("UPDATE", "status"), partial)).toBeUndefined();
    const noSubs: DiscoveryResource = { ...configmaps, subresources: undefined };
    expect(unservedOperation(cm("UPDATE", "status"), noSubs)).toBeUndefined();
  });
});
