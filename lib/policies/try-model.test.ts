import { describe, expect, it } from "vitest";
import { deniedByAdmission, dryRunRefusedBy, namedBinding, type TryResult } from "./try-model";

describe("namedBinding", () => {
  it("reads the policy and binding from a denial and from a Warn warning", () => {
    expect(
      namedBinding(
        `configmaps "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'p-binding' denied request: no`,
      ),
    ).toEqual({ policy: "p", binding: "p-binding" });
    expect(
      namedBinding("Validation failed for ValidatingAdmissionPolicy 'a.b' with binding 'c': msg"),
    ).toEqual({ policy: "a.b", binding: "c" });
  });
  it("is undefined for a webhook's denial that quotes a policy's words", () => {
    expect(
      namedBinding(
        `admission webhook "x.example.com" denied the request: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no`,
      ),
    ).toBeUndefined();
  });
  it("is undefined for other messages, and reads only a bounded prefix", () => {
    expect(namedBinding('admission webhook "x" denied the request')).toBeUndefined();
    expect(
      namedBinding(`${"x".repeat(5000)} ValidatingAdmissionPolicy 'p' with binding 'b'`),
    ).toBeUndefined();
  });
});

describe("dryRunRefusedBy", () => {
  const refused = (message: string, status = 400): TryResult => ({
    allowed: false,
    warnings: [],
    error: { status, reason: "BadRequest", message, cluster: "" },
    resource: "configmaps",
    namespace: "default",
  });
  it("names the webhook whose side effects make the apiserver refuse the dry run", () => {
    // webhook/errors NewDryRunUnsupportedErr, as the apiserver words it.
    expect(
      dryRunRefusedBy(refused('admission webhook "audit.example.com" does not support dry run')),
    ).toBe("audit.example.com");
  });
  it("is undefined for a denial, for an admitted create and for other refusals", () => {
    expect(
      dryRunRefusedBy(refused('admission webhook "a.example.com" denied the request: no', 403)),
    ).toBeUndefined();
    expect(
      dryRunRefusedBy({ allowed: true, warnings: [], resource: "configmaps", object: {} }),
    ).toBeUndefined();
    expect(dryRunRefusedBy(refused('configmaps "x" already exists', 409))).toBeUndefined();
  });
});

describe("deniedByAdmission", () => {
  const refused = (message: string, status: number, reason = "Invalid"): TryResult => ({
    allowed: false,
    warnings: [],
    error: { status, reason, message, cluster: "" },
    resource: "configmaps",
    namespace: "default",
  });
  it("is true for a webhook's or a policy's refusal, whatever its code, and for a 403", () => {
    expect(
      deniedByAdmission(
        refused('admission webhook "a.example.com" denied the request: no', 400, "BadRequest"),
      ),
    ).toBe(true);
    expect(
      deniedByAdmission(
        refused(
          `configmaps "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no`,
          422,
        ),
      ),
    ).toBe(true);
    expect(
      deniedByAdmission(
        refused(
          'configmaps "x" is forbidden: exceeded quota: q, requested: count/configmaps=1',
          403,
          "Forbidden",
        ),
      ),
    ).toBe(true);
  });
  it("is false when the apiserver refused the request itself", () => {
    expect(deniedByAdmission(refused('configmaps "x" already exists', 409, "AlreadyExists"))).toBe(
      false,
    );
    expect(
      deniedByAdmission(
        refused(
          `ConfigMap "X" is invalid: metadata.name: Invalid value: "X": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters`,
          422,
        ),
      ),
    ).toBe(false);
    expect(
      deniedByAdmission({ allowed: true, warnings: [], resource: "configmaps", object: {} }),
    ).toBe(false);
  });
});
