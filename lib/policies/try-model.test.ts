import { describe, expect, it } from "vitest";
import { namedBinding } from "./try-model";

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
