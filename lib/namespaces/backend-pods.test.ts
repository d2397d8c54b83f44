import { describe, expect, it } from "vitest";
import { hook } from "@/lib/admission/model/test-helpers";
import {
  MAX_TARGETS,
  backendTargets,
  endpointsFingerprint,
  parseSelector,
  parseTargets,
  equalitySelectorText,
  targetsQuery,
} from "./backend-pods";

const svc = (namespace: string, name: string, selector?: Record<string, string>) => ({
  metadata: { namespace, name },
  spec: selector ? { selector } : {},
});
const backed = (name: string, namespace: string, service: string) =>
  hook(name, { clientConfig: { service: { namespace, name: service } } });

describe("equalitySelectorText / parseSelector", () => {
  it("writes a selector map as k=v with keys sorted, and reads it back", () => {
    const text = equalitySelectorText({ "app.kubernetes.io/name": "hook", app: "x", tier: "" });
    expect(text).toBe("app=x,app.kubernetes.io/name=hook,tier=");
    expect(parseSelector(text ?? "")).toEqual({
      app: "x",
      "app.kubernetes.io/name": "hook",
      tier: "",
    });
  });

  it("selects nothing from an empty map, and refuses what is not a label selector of equalities", () => {
    expect(equalitySelectorText({})).toBeUndefined();
    expect(equalitySelectorText({ "a,b": "x" })).toBeUndefined();
    expect(equalitySelectorText({ a: "x=y" })).toBeUndefined();
    for (const bad of ["", "a", "=x", "a=x,", "a!=x", "a in (x)", "a=x,a=y", "a=x y", "/a=x"])
      expect(parseSelector(bad), bad).toBeUndefined();
  });
});

describe("backendTargets", () => {
  it("one target per namespace and selector of the Services webhooks call, sorted", () => {
    const targets = backendTargets(
      {
        mutatingWebhookConfigurations: [
          { metadata: { name: "m" }, webhooks: [backed("m.x.io", "b", "hook")] },
        ],
        validatingWebhookConfigurations: [
          {
            metadata: { name: "v" },
            webhooks: [
              backed("v1.x.io", "a", "one"),
              backed("v2.x.io", "a", "two"),
              backed("v3.x.io", "a", "one"),
              // Missing, selecting nothing, or not a Service: no pods to read.
              backed("gone.x.io", "a", "gone"),
              backed("open.x.io", "a", "open"),
              hook("url.x.io"),
            ],
          },
        ],
      },
      [
        svc("a", "one", { app: "x" }),
        svc("a", "two", { app: "x" }),
        svc("a", "open"),
        svc("b", "hook", { tier: "web", app: "hook" }),
        svc("c", "unused", { app: "z" }),
      ],
    );
    expect(targets).toEqual([
      { namespace: "a", selector: "app=x", services: ["one", "two"] },
      { namespace: "b", selector: "app=hook,tier=web", services: ["hook"] },
    ]);
  });
});

describe("targetsQuery / parseTargets", () => {
  it("round-trips through the URL", () => {
    const targets = [
      { namespace: "a", selector: "app=x" },
      { namespace: "cert-manager", selector: "app.kubernetes.io/name=webhook,x=" },
    ];
    const q = new URLSearchParams(targetsQuery(targets));
    expect(parseTargets(q.getAll("b"))).toEqual(targets);
  });

  it("drops repeats and refuses a bad namespace, a bad selector or too many", () => {
    expect(parseTargets(["a/app=x", "a/app=x"])).toEqual([{ namespace: "a", selector: "app=x" }]);
    for (const bad of ["app=x", "A/app=x", "a/", "a/app", "a/app in (x)", "../x/app=x"])
      expect(parseTargets([bad]), bad).toBeInstanceOf(Error);
    expect(
      parseTargets(Array.from({ length: MAX_TARGETS + 1 }, (_, i) => `n${i}/a=b`)),
    ).toBeInstanceOf(Error);
  });
});

describe("endpointsFingerprint", () => {
  const slice = (namespace: string, name: string, service: string, resourceVersion: string) => ({
    metadata: {
      namespace,
      name,
      resourceVersion,
      labels: { "kubernetes.io/service-name": service },
    },
  });
  const targets = [{ namespace: "a", selector: "app=x", services: ["one"] }];

  it("changes with the backends' slices only, not with their order or other slices", () => {
    const one = slice("a", "one-1", "one", "10");
    const base = [one, slice("a", "other-1", "other", "11")];
    const fp = endpointsFingerprint(targets, base);
    expect(fp).toMatch(/^1:/);
    expect(endpointsFingerprint(targets, [...base].reverse())).toBe(fp);
    expect(endpointsFingerprint(targets, [one, slice("a", "other-1", "other", "12")])).toBe(fp);
    expect(endpointsFingerprint(targets, [slice("b", "one-1", "one", "12"), one])).toBe(fp);
    expect(endpointsFingerprint(targets, [slice("a", "one-1", "one", "13")])).not.toBe(fp);
    expect(endpointsFingerprint(targets, [...base, slice("a", "one-2", "one", "14")])).not.toBe(fp);
  });
});
