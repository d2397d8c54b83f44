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
  });
});
