import { describe, expect, it } from "vitest";
import { parseLegacyGroup } from "./legacy-group";
import { servedKinds } from "./served-kinds";
import { isReadableCollection } from "./resources";

describe("the legacy admission group", () => {
  it("is optional, must be a group name, and not admissionregistration.k8s.io", () => {
    expect(parseLegacyGroup(undefined)).toBeUndefined();
    expect(parseLegacyGroup("")).toBeUndefined();
    expect(parseLegacyGroup("admission.portcullis.dev")).toBe("admission.portcullis.dev");
    expect(() => parseLegacyGroup("Not A Group")).toThrow(/not an API group name/);
    expect(() => parseLegacyGroup("nodot")).toThrow(/not an API group name/);
    expect(() => parseLegacyGroup("admissionregistration.k8s.io")).toThrow(/group of your own/);
  });

  it("discovery of the legacy group makes InitializerConfiguration read there", () => {
    const kinds = servedKinds([
      {
        group: "admissionregistration.k8s.io",
        version: "v1",
        resources: [
          { name: "mutatingwebhookconfigurations", kind: "MutatingWebhookConfiguration" },
        ],
      },
      {
        group: "admission.portcullis.dev",
        version: "v1alpha1",
        resources: [{ name: "initializerconfigurations", kind: "InitializerConfiguration" }],
      },
    ]);
    const init = kinds.find((k) => k.known.kind === "InitializerConfiguration");
    expect(init?.readAt).toEqual({
      group: "admission.portcullis.dev",
      version: "v1alpha1",
      resource: "initializerconfigurations",
    });
    const eahc = kinds.find((k) => k.known.kind === "ExternalAdmissionHookConfiguration");
    expect(eahc?.readAt).toBeUndefined();
    expect(kinds.find((k) => k.known.kind === "MutatingWebhookConfiguration")?.readAt?.group).toBe(
      "admissionregistration.k8s.io",
    );
  });

  it("collections of the legacy group are readable only when it is configured", () => {
    const ref = { group: "admission.portcullis.dev", version: "v1alpha1", resource: "x" };
    expect(isReadableCollection(ref)).toBe(false);
    expect(isReadableCollection(ref, "admission.portcullis.dev")).toBe(true);
    expect(isReadableCollection(ref, "other.example.com")).toBe(false);
  });
});
