import { describe, expect, it } from "vitest";
import { deciderLinks, hookContextLinks } from "./links";

describe("deciderLinks", () => {
  it("links a webhook call to its configuration and to its decisions", () => {
    expect(
      deciderLinks({ kind: "mutating-webhook", hook: "m.example.com", configuration: "cfg a" }),
    ).toEqual({
      decisions: "/decisions?hook=m.example.com",
      configuration: "/webhooks/mutatingwebhookconfigurations/cfg%20a",
    });
    expect(
      deciderLinks({ kind: "validating-webhook", hook: "v.example.com", configuration: "c" }),
    ).toEqual({
      decisions: "/decisions?hook=v.example.com",
      configuration: "/webhooks/validatingwebhookconfigurations/c",
    });
  });

  it("links a denial known only by the webhook's name to its decisions and to a search", () => {
    expect(deciderLinks({ kind: "webhook", hook: "d.example.com", configuration: "" })).toEqual({
      decisions: "/decisions?hook=d.example.com",
      findConfiguration: "/webhooks?q=d.example.com",
    });
    expect(deciderLinks({ kind: "webhook", hook: "", configuration: "" })).toEqual({
      decisions: "/decisions?hook=",
    });
  });

  it("links a policy decision to the policy, its binding and its decisions", () => {
    expect(
      deciderLinks({ kind: "validating-policy", hook: "require-team", configuration: "teams" }),
    ).toEqual({
      decisions: "/decisions?policy=require-team",
      decider: "/policies/validatingadmissionpolicies/require-team",
      configuration: "/policies/validatingadmissionpolicybindings/teams",
    });
    expect(deciderLinks({ kind: "mutating-policy", hook: "owner", configuration: "" })).toEqual({
      decisions: "/decisions?policy=owner",
      decider: "/policies/mutatingadmissionpolicies/owner",
    });
  });
});

describe("hookContextLinks", () => {
  it("finds a webhook in the webhook list and in the exemption matrix", () => {
    expect(hookContextLinks("a.b&c d")).toEqual({
      list: "/webhooks?q=a.b%26c+d",
      matrix: "/namespaces?hook=a.b%26c+d&all=1",
    });
  });
});
