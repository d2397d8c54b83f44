import { describe, expect, test } from "vitest";
import {
  builtinDiscovery,
  parseResourceName,
  pluralize,
  RequestSpecError,
  resolveResource,
} from "@/lib/admission/report/resources";

const d = builtinDiscovery();
const body = (apiVersion: string, kind: string, namespaced = true) => ({
  apiVersion,
  kind,
  namespaced,
});

describe("resolveResource", () => {
  test("from the kind", () => {
    expect(resolveResource(d, body("apps/v1", "Deployment"), "", undefined)).toMatchObject({
      group: "apps",
      version: "v1",
      resource: "deployments",
      namespaced: true,
      guessed: false,
    });
    expect(resolveResource(d, body("v1", "Namespace", false), "", undefined)).toMatchObject({
      resource: "namespaces",
      namespaced: false,
    });
  });

  test("subresources: body kinds name their parent, or ask for --resource", () => {
    expect(resolveResource(d, body("v1", "PodExecOptions"), "exec", undefined)).toMatchObject({
      group: "",
      resource: "pods",
    });
    expect(resolveResource(d, body("policy/v1", "Eviction"), "eviction", undefined)).toMatchObject({
      resource: "pods",
    });
    expect(resolveResource(d, body("apps/v1", "Deployment"), "status", undefined)).toMatchObject({
      resource: "deployments",
    });
    expect(() => resolveResource(d, body("autoscaling/v1", "Scale"), "scale", undefined)).toThrow(
      /fits core\/v1\/replicationcontrollers, apps\/v1\/deployments/,
    );
    expect(
      resolveResource(
        d,
        body("autoscaling/v1", "Scale"),
        "scale",
        parseResourceName("statefulsets.apps"),
      ),
    ).toMatchObject({ group: "apps", version: "v1", resource: "statefulsets", guessed: false });
  });

  test("unknown kinds are guessed and flagged", () => {
    expect(resolveResource(d, body("example.com/v1", "Widget"), "", undefined)).toMatchObject({
      group: "example.com",
      resource: "widgets",
      guessed: true,
    });
    expect(() => resolveResource(d, body("", ""), "", undefined)).toThrow(RequestSpecError);
  });
});

describe("parseResourceName", () => {
  test("the three forms", () => {
    expect(parseResourceName("pods")).toEqual({ group: "", version: undefined, resource: "pods" });
    expect(parseResourceName("deployments.apps")).toEqual({
      group: "apps",
      version: undefined,
      resource: "deployments",
    });
    expect(parseResourceName("core/v1/pods")).toEqual({
      group: "",
      version: "v1",
      resource: "pods",
    });
    expect(parseResourceName("/v1/pods")).toEqual({ group: "", version: "v1", resource: "pods" });
    expect(() => parseResourceName("a/b")).toThrow(RequestSpecError);
  });
});

test("pluralize follows the apiserver's rules", () => {
  expect(pluralize("NetworkPolicy")).toBe("networkpolicies");
  expect(pluralize("Ingress")).toBe("ingresses");
  expect(pluralize("Gateway")).toBe("gateways");
  expect(pluralize("Pod")).toBe("pods");
});
