import { describe, expect, it } from "vitest";
import type { DeciderKind } from "@/lib/admission/audit/audit";
import { deciderLinks, hookContextLinks, predictTargets } from "./links";

describe("deciderLinks", () => {
  it("links a webhook call to its configuration and to its decisions", () => {
    expect(
      deciderLinks({ kind: "mutating-webhook", hook: "m.example.com", configuration: "cfg a" }),
    ).toEqual({
      decisions: "/decisions?hook=m.example.com&phase=mutating",
      configuration: "/webhooks/mutatingwebhookconfigurations/cfg%20a",
    });
    expect(
      deciderLinks({ kind: "validating-webhook", hook: "v.example.com", configuration: "c" }),
    ).toEqual({
      decisions: "/decisions?hook=v.example.com&phase=validating",
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
      decisions: "/decisions?policy=require-team&phase=validating",
      decider: "/policies/validatingadmissionpolicies/require-team",
      configuration: "/policies/validatingadmissionpolicybindings/teams",
    });
    expect(deciderLinks({ kind: "mutating-policy", hook: "owner", configuration: "" })).toEqual({
      decisions: "/decisions?policy=owner&phase=mutating",
      decider: "/policies/mutatingadmissionpolicies/owner",
    });
  });
});

describe("hookContextLinks", () => {
  it("finds a webhook in the webhook list and in the exemption matrix", () => {
    expect(hookContextLinks("a.b&c d")).toEqual({
      list: "/webhooks?q=a.b%26c+d",
      matrix: "/namespaces?only=a.b%26c+d&all=1",
    });
  });
});

describe("predictTargets", () => {
  const d = (kind: DeciderKind, hook: string, configuration: string) => ({
    kind,
    hook,
    configuration,
  });

  it("a webhook is predicted in each configuration its decisions name, a denial names none", () => {
    const items = [
      d("webhook", "w.example.com", ""),
      d("mutating-webhook", "w.example.com", "inject"),
      d("mutating-webhook", "w.example.com", "inject"),
      d("validating-webhook", "w.example.com", "guard"),
      d("mutating-webhook", "other.example.com", "inject"),
      d("validating-policy", "w.example.com", "binding"),
    ];
    expect(predictTargets(items, { hook: "w.example.com" })).toEqual([
      { source: "MutatingWebhookConfiguration", configuration: "inject", name: "w.example.com" },
      { source: "ValidatingWebhookConfiguration", configuration: "guard", name: "w.example.com" },
    ]);
    expect(predictTargets([d("webhook", "w.example.com", "")], { hook: "w.example.com" })).toEqual(
      [],
    );
  });

  it("a policy is predicted with any binding, once per kind; at most three targets", () => {
    expect(
      predictTargets(
        [
          d("validating-policy", "require-team", "teams"),
          d("validating-policy", "require-team", "audit"),
          d("mutating-webhook", "require-team", "cfg"),
        ],
        { policy: "require-team" },
      ),
    ).toEqual([{ source: "ValidatingAdmissionPolicy", configuration: "require-team", name: "" }]);
    const many = ["a", "b", "c", "d"].map((c) => d("mutating-webhook", "w", c));
    expect(predictTargets(many, { hook: "w" }).map((t) => t.configuration)).toEqual([
      "a",
      "b",
      "c",
    ]);
  });
});
