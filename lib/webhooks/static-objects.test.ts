import { describe, expect, it } from "vitest";
import type { ManifestObjects } from "@/lib/admission/model/snapshot";
import { staticObjectOf, staticObjectsOf } from "./static-objects";

const origin = {
  kind: "manifest" as const,
  plugin: "ValidatingAdmissionPolicy" as const,
  file: "/m/p.yaml",
};
const m: ManifestObjects = {
  mutatingWebhookConfigurations: [],
  validatingWebhookConfigurations: [],
  validatingAdmissionPolicies: [{ metadata: { name: "p.static.k8s.io" } }],
  validatingAdmissionPolicyBindings: [{ metadata: { name: "b.static.k8s.io" } }],
  mutatingAdmissionPolicies: [],
  mutatingAdmissionPolicyBindings: [],
  origins: {
    "ValidatingAdmissionPolicy/p.static.k8s.io": origin,
    "ValidatingAdmissionPolicyBinding/b.static.k8s.io": origin,
  },
};

describe("static objects by resource", () => {
  it("lists each resource's static objects with their origin", () => {
    expect(staticObjectsOf(m, "validatingadmissionpolicies")).toEqual([
      { object: { metadata: { name: "p.static.k8s.io" } }, origin },
    ]);
    expect(staticObjectsOf(m, "mutatingadmissionpolicies")).toEqual([]);
    expect(staticObjectsOf(undefined, "validatingadmissionpolicies")).toEqual([]);
  });

  it("finds one by name, and nothing for a name the directories lack", () => {
    expect(staticObjectOf(m, "validatingadmissionpolicybindings", "b.static.k8s.io")?.origin).toBe(
      origin,
    );
    expect(staticObjectOf(m, "validatingadmissionpolicies", "b.static.k8s.io")).toBeUndefined();
  });
});
