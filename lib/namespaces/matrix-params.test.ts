import { describe, expect, it } from "vitest";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import {
  changeRequest,
  MATRIX_RESOURCES,
  DEFAULT_PARAMS,
  hookColumnHref,
  readOnly,
  readParams,
  requestOf,
  writeParams,
} from "@/lib/namespaces/matrix-params";

describe("matrix parameters in the URL", () => {
  it("round-trips every parameter and leaves defaults out", () => {
    const p = {
      resource: "namespaces",
      operation: "UPDATE" as const,
      groupBy: "environment",
      hook: "inject",
      only: "MutatingWebhookConfiguration/istio-sidecar-injector/namespace.sidecar-injector.istio.io",
      namespace: "team",
      failurePolicy: "Fail" as const,
      all: true,
    };
    const q = writeParams(p);
    expect(readParams(new URLSearchParams(q.slice(1)))).toEqual(p);
    expect(writeParams(DEFAULT_PARAMS)).toBe("");
    expect(requestOf(p)).toEqual({
      group: "",
      version: "v1",
      resource: "namespaces",
      operation: "UPDATE",
      scope: "Namespace",
    });
  });
  it("falls back to defaults on hostile or unknown values", () => {
    const p = readParams(
      new URLSearchParams({
        resource: "secrets/../../x",
        op: "PATCH",
        group: "not a label key!",
        fp: "Sometimes",
        ns: "x".repeat(500),
      }),
    );
    expect(p).toMatchObject({
      resource: "pods",
      operation: "CREATE",
      groupBy: "runlevel",
      failurePolicy: "",
    });
    expect(p.namespace).toHaveLength(63);
    expect(readParams(new URLSearchParams({ group: "example.com/tier" })).groupBy).toBe(
      "example.com/tier",
    );
  });
  it("marks cluster-scoped resources", () => {
    expect(requestOf({ ...DEFAULT_PARAMS, resource: "nodes" }).scope).toBe("Cluster");
    expect(requestOf({ ...DEFAULT_PARAMS, resource: "deployments.apps" })).toMatchObject({
      group: "apps",
      resource: "deployments",
      scope: "Namespaced",
    });
  });
  it("pairs CONNECT with the subresources it reaches, whichever half changes", () => {
    const podCreate = { resource: "pods", operation: "CREATE" as const };
    expect(changeRequest(podCreate, { operation: "CONNECT" })).toEqual({
      resource: "pods/exec",
      operation: "CONNECT",
    });
    expect(changeRequest(podCreate, { resource: "services/proxy" })).toEqual({
      resource: "services/proxy",
      operation: "CONNECT",
    });
    const exec = { resource: "services/proxy", operation: "CONNECT" as const };
    expect(changeRequest(exec, { operation: "DELETE" })).toEqual({
      resource: "services",
      operation: "DELETE",
    });
    expect(changeRequest(exec, { resource: "configmaps" })).toEqual({
      resource: "configmaps",
      operation: "CREATE",
    });
    expect(
      changeRequest({ resource: "configmaps", operation: "UPDATE" }, { resource: "pods" }),
    ).toEqual({
      resource: "pods",
      operation: "UPDATE",
    });
    // An address that pairs them wrongly: the resource decides, else the operation.
    expect(readParams(new URLSearchParams("op=CONNECT"))).toMatchObject({
      resource: "pods/exec",
      operation: "CONNECT",
    });
    expect(readParams(new URLSearchParams("resource=pods/attach&op=UPDATE"))).toMatchObject({
      resource: "pods/attach",
      operation: "CONNECT",
    });
    expect(requestOf(readParams(new URLSearchParams("resource=nodes/proxy")))).toEqual({
      group: "",
      version: "v1",
      resource: "nodes",
      subresource: "proxy",
      operation: "CONNECT",
      scope: "Cluster",
    });
  });
  it("offers CONNECT for every built-in subresource only CONNECT reaches (its body an options object)", () => {
    const connect = builtinDiscovery().flatMap((r) =>
      (r.subresources ?? [])
        .filter((s) => s.kind?.kind.endsWith("Options"))
        .map((s) => `${r.resource}/${s.name} ${r.namespaced ? "Namespaced" : "Cluster"}`),
    );
    const offered = MATRIX_RESOURCES.filter((r) => r.request.subresource !== undefined).map(
      (r) => `${r.request.resource}/${r.request.subresource} ${r.request.scope}`,
    );
    expect(offered.sort()).toEqual(connect.sort());
  });

  it("a hook's column link keeps the request and shows that column only, where its rules do not match too", () => {
    const id = {
      source: "ValidatingWebhookConfiguration",
      configuration: "ingress-nginx-admission",
      name: "validate.nginx.ingress.kubernetes.io",
    };
    const href = hookColumnHref(id, {
      ...DEFAULT_PARAMS,
      resource: "configmaps",
      operation: "UPDATE",
      hook: "nginx",
      namespace: "team",
      failurePolicy: "Ignore",
    });
    const back = readParams(new URL(href, "http://x").searchParams);
    expect(back).toEqual({
      ...DEFAULT_PARAMS,
      resource: "configmaps",
      operation: "UPDATE",
      only: "ValidatingWebhookConfiguration/ingress-nginx-admission/validate.nginx.ingress.kubernetes.io",
      all: true,
    });
    expect(readOnly(back.only)).toEqual(id);
    expect(new URL(hookColumnHref({ ...id, name: "a.b.c" }), "http://x").pathname).toBe(
      "/namespaces",
    );
  });

  it("reads only a hook name or Source/configuration/name as the one column to show", () => {
    const only = (v: string) => readParams(new URLSearchParams({ only: v })).only;
    expect(only("a.b.c")).toBe("a.b.c");
    expect(readOnly(only("a.b.c"))).toEqual({ name: "a.b.c" });
    expect(only("MutatingAdmissionPolicy/p/b")).toBe("MutatingAdmissionPolicy/p/b");
    for (const bad of ["a/b", "a/b/c/d", "x y", "/b/c", "S/c/", "S1/c/n", "n".repeat(254)])
      expect(only(bad)).toBe("");
  });

  it("the automatic name label cannot head groups (every namespace has it, one value each)", () => {
    expect(readParams(new URLSearchParams("group=kubernetes.io/metadata.name")).groupBy).toBe(
      "runlevel",
    );
    expect(readParams(new URLSearchParams("group=team")).groupBy).toBe("team");
  });
});
