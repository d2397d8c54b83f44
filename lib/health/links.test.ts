import { describe, expect, it } from "vitest";
import { healthHref, healthRowId, hookDecisionsHref, policyDecisionsHref } from "./links";

describe("health links", () => {
  it("anchors a row and encodes it in the fragment", () => {
    const id = healthRowId("ValidatingWebhookConfiguration", "a b", 2);
    expect(id).toBe("health-ValidatingWebhookConfiguration-a b-2");
    expect(healthHref(id)).toBe("/health#health-ValidatingWebhookConfiguration-a%20b-2");
  });

  it("filters the decision feed by hook or policy", () => {
    expect(hookDecisionsHref("v.example.com")).toBe("/decisions?hook=v.example.com");
    expect(policyDecisionsHref("a&b")).toBe("/decisions?policy=a%26b");
    // A policy name may be both kinds': the phase tells them apart; a webhook's too.
    expect(policyDecisionsHref("p", "MutatingAdmissionPolicy")).toBe(
      "/decisions?policy=p&phase=mutating",
    );
    expect(policyDecisionsHref("p", "ValidatingAdmissionPolicy")).toBe(
      "/decisions?policy=p&phase=validating",
    );
    expect(hookDecisionsHref("v.example.com", "ValidatingWebhookConfiguration")).toBe(
      "/decisions?hook=v.example.com&phase=validating",
    );
    expect(hookDecisionsHref("m.example.com", "MutatingWebhookConfiguration")).toBe(
      "/decisions?hook=m.example.com&phase=mutating",
    );
    expect(hookDecisionsHref("c.example.com", "CustomResourceDefinition")).toBe(
      "/decisions?hook=c.example.com",
    );
  });
});
