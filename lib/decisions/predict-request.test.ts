import { describe, expect, it } from "vitest";
import { parseAuditEvent, type AuditRequestFacts } from "@/lib/admission/audit/audit";
import { hook, validatingSnapshot } from "@/lib/admission/model/test-helpers";
import { predictPage } from "@/lib/predict/page-request";
import { liveOf } from "@/lib/predict/test-live";
import { stateFromQuery } from "@/lib/predict/page-state";
import { requestPrediction } from "./predict-request";

const facts = (over: Partial<AuditRequestFacts> = {}): AuditRequestFacts => ({
  user: "system:serviceaccount:kube-system:replicaset-controller",
  groups: ["system:serviceaccounts", "system:authenticated"],
  verb: "create",
  operation: "CREATE",
  requestURI: "/api/v1/namespaces/team/configmaps",
  group: "",
  version: "v1",
  resource: "configmaps",
  subresource: "",
  namespace: "team",
  name: "settings",
  dryRun: false,
  latencies: {},
  ...over,
});

const stateOf = (href: string) => stateFromQuery(href.slice(href.indexOf("?") + 1));

const snapshot = validatingSnapshot([
  hook("cm.example.com", {
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { env: "prod" } },
  }),
  hook("labelled.example.com", {
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    objectSelector: { matchLabels: { app: "web" } },
  }),
]);
const live = liveOf(snapshot);

describe("a decision's request on the predict page", () => {
  it("at Metadata level: the request's facts, the object known by name only", () => {
    const p = requestPrediction(facts(), undefined);
    expect(p?.objectKnown).toBe(false);
    const s = stateOf(p?.href ?? "");
    expect(s).toMatchObject({
      operation: "CREATE",
      resource: "core/v1/configmaps",
      namespace: "team",
      user: "system:serviceaccount:kube-system:replicaset-controller",
      groups: ["system:serviceaccounts"],
      dryRun: false,
    });
    expect(JSON.parse(s.object)).toEqual({
      apiVersion: "v1",
      metadata: { name: "settings", namespace: "team" },
    });
    // The page predicts it as the request's user, in its namespace; labels are not known, so an
    // objectSelector on them skips.
    const r = predictPage(s, live);
    expect(r.ok && r.report.request.userInfo).toEqual({
      username: "system:serviceaccount:kube-system:replicaset-controller",
      groups: ["system:serviceaccounts", "system:authenticated"],
    });
    expect(r.ok && r.report.calls.map((c) => c.hook.name)).toEqual(["cm.example.com"]);
    expect(r.ok && r.report.skips.map((x) => [x.hook.name, x.code])).toEqual([
      ["labelled.example.com", "object-selector"],
    ]);
  });

  it("predicts an impersonated request as the user admission saw, not the impersonator", () => {
    const event = parseAuditEvent({
      auditID: "imp",
      stage: "ResponseComplete",
      verb: "create",
      requestURI: "/api/v1/namespaces/team/configmaps",
      user: { username: "admin", groups: ["system:masters", "system:authenticated"] },
      impersonatedUser: { username: "jane", groups: ["devs", "system:authenticated"] },
      objectRef: { resource: "configmaps", namespace: "team", name: "x", apiVersion: "v1" },
      responseStatus: {
        code: 400,
        message: 'admission webhook "deny.example.com" denied the request: nope',
      },
    });
    const p = event && requestPrediction(event.request, event.raw);
    expect(stateOf(p?.href ?? "")).toMatchObject({ user: "jane", groups: ["devs"] });
  });

  it("at Request level: the object as the event holds it, without managedFields", () => {
    const requestObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "settings",
        namespace: "team",
        labels: { app: "web" },
        managedFields: [{ manager: "kubectl" }],
      },
      data: { k: "v" },
    };
    const p = requestPrediction(facts({ dryRun: true }), JSON.stringify({ requestObject }));
    expect(p?.objectKnown).toBe(true);
    const s = stateOf(p?.href ?? "");
    expect(s.dryRun).toBe(true);
    expect(JSON.parse(s.object)).toEqual({
      ...requestObject,
      metadata: { name: "settings", namespace: "team", labels: { app: "web" } },
    });
    const r = predictPage(s, live);
    expect(r.ok && r.report.calls.map((c) => c.hook.name).sort()).toEqual([
      "cm.example.com",
      "labelled.example.com",
    ]);
  });

  it("a DELETE's or CONNECT's requestObject is its options: the object stays unknown", () => {
    const options = JSON.stringify({ requestObject: { kind: "DeleteOptions", apiVersion: "v1" } });
    const del = requestPrediction(facts({ operation: "DELETE", verb: "delete" }), options);
    expect(del?.objectKnown).toBe(false);
    expect(stateOf(del?.href ?? "").operation).toBe("DELETE");
    const exec = requestPrediction(
      facts({ operation: "CONNECT", resource: "pods", subresource: "exec", name: "web" }),
      JSON.stringify({ requestObject: { kind: "PodExecOptions", apiVersion: "v1" } }),
    );
    expect(exec?.objectKnown).toBe(false);
    expect(stateOf(exec?.href ?? "")).toMatchObject({
      operation: "CONNECT",
      subresource: "exec",
      resource: "core/v1/pods",
    });
  });

  it("an object too large for a link, or an unreadable event, is predicted by name", () => {
    const big = { kind: "ConfigMap", apiVersion: "v1", data: { k: "x".repeat(40_000) } };
    expect(requestPrediction(facts(), JSON.stringify({ requestObject: big }))?.objectKnown).toBe(
      false,
    );
    expect(requestPrediction(facts(), "{not json")?.objectKnown).toBe(false);
    expect(requestPrediction(facts(), JSON.stringify([1, 2]))?.objectKnown).toBe(false);
  });

  it("a Namespace names itself; a group's resource keeps its group; a read has no prediction", () => {
    const ns = stateOf(
      requestPrediction(facts({ resource: "namespaces", namespace: "team", name: "team" }), "")
        ?.href ?? "",
    );
    expect(ns.namespace).toBe("");
    expect(JSON.parse(ns.object)).toEqual({ apiVersion: "v1", metadata: { name: "team" } });
    const deploy = stateOf(
      requestPrediction(facts({ group: "apps", resource: "deployments" }), undefined)?.href ?? "",
    );
    expect(deploy.resource).toBe("apps/v1/deployments");
    expect(JSON.parse(deploy.object).apiVersion).toBe("apps/v1");
    expect(requestPrediction(facts({ operation: "", verb: "get" }), undefined)).toBeUndefined();
  });

  it("a DELETE known by name only is of its resource's kind: the refusal of an immortal namespace is predicted", () => {
    const p = requestPrediction(
      facts({
        verb: "delete",
        operation: "DELETE",
        requestURI: "/api/v1/namespaces/kube-public",
        resource: "namespaces",
        namespace: "kube-public",
        name: "kube-public",
      }),
      undefined,
    );
    const r = predictPage(stateOf(p?.href ?? ""), live);
    expect(r.ok && r.report.request.kind).toEqual({ group: "", version: "v1", kind: "Namespace" });
    expect(r.ok && r.report.rejectedBeforeHooks).toEqual({
      plugin: "NamespaceLifecycle",
      status: 403,
      message: 'namespaces "kube-public" is forbidden: this namespace may not be deleted',
    });
    // A ConfigMap's DELETE by name: its kind, from the resource.
    const cm = requestPrediction(facts({ verb: "delete", operation: "DELETE" }), undefined);
    const c = predictPage(stateOf(cm?.href ?? ""), live);
    expect(c.ok && c.report.request.kind).toEqual({ group: "", version: "v1", kind: "ConfigMap" });
  });
});
