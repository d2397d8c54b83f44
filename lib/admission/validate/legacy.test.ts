import { describe, expect, it } from "vitest";
import { kindInfoFor } from "./kind-info";
import { validateObject } from "./validate-object";

const INIT = kindInfoFor("admissionregistration.k8s.io/v1alpha1", "InitializerConfiguration");
const EAHC = kindInfoFor(
  "admissionregistration.k8s.io/v1alpha1",
  "ExternalAdmissionHookConfiguration",
);

const fields = (v: ReturnType<typeof validateObject>) =>
  v.issues.filter((i) => i.severity === "error").map((i) => `${i.field}: ${i.message}`);

describe("InitializerConfiguration v1alpha1 (reference §6.1)", () => {
  it("accepts fully qualified names and plain or '*' resources; no defaults are added", () => {
    const o = {
      apiVersion: "admissionregistration.k8s.io/v1alpha1",
      kind: "InitializerConfiguration",
      metadata: { name: "defaults" },
      initializers: [
        {
          name: "podimage.example.com",
          rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
        },
        {
          name: "all.example.com",
          rules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
        },
      ],
    };
    const v = validateObject(INIT!, o);
    expect(v.outcome).toBe("accepted");
    expect(v.defaulted).toEqual(o);
  });

  it("refuses short names, subresources and '*' beside other resources", () => {
    const v = validateObject(INIT!, {
      metadata: { name: "bad" },
      initializers: [
        {
          name: "short",
          rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods/status", "*"] }],
        },
      ],
    });
    expect(v.outcome).toBe("invalid");
    const errs = fields(v);
    expect(errs.some((e) => e.startsWith("initializers[0].name:"))).toBe(true);
    expect(errs).toContain(
      'initializers[0].rules[0].resources[0]: Invalid value: "pods/status": must not specify subresources',
    );
    expect(
      errs.some((e) => e.includes("if '*' is present, must not specify other resources")),
    ).toBe(true);
  });
});

describe("ExternalAdmissionHookConfiguration v1alpha1 (reference §6.2)", () => {
  const hook = {
    name: "deny.example.com",
    clientConfig: { service: { namespace: "hooks", name: "deny" }, caBundle: "Y2E=" },
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec"] },
    ],
  };

  it("defaults failurePolicy to Ignore and allows subresources", () => {
    const v = validateObject(EAHC!, {
      metadata: { name: "hooks" },
      externalAdmissionHooks: [hook],
    });
    expect(v.outcome).toBe("accepted");
    expect(
      (v.defaulted["externalAdmissionHooks"] as Array<Record<string, unknown>>)[0]?.failurePolicy,
    ).toBe("Ignore");
  });

  it("refuses an unknown failurePolicy, a missing operation and a short name", () => {
    const v = validateObject(EAHC!, {
      metadata: { name: "hooks" },
      externalAdmissionHooks: [
        {
          ...hook,
          name: "deny",
          failurePolicy: "Sometimes",
          rules: [{ ...hook.rules[0], operations: [] }],
        },
      ],
    });
    const errs = fields(v);
    expect(errs.some((e) => e.startsWith("externalAdmissionHooks[0].name:"))).toBe(true);
    expect(
      errs.some((e) =>
        e.startsWith('externalAdmissionHooks[0].failurePolicy: Unsupported value: "Sometimes"'),
      ),
    ).toBe(true);
    expect(errs).toContain("externalAdmissionHooks[0].rules[0].operations: Required value");
  });
});
