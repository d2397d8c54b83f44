import { describe, expect, it } from "vitest";
import { parseLegacyGroup } from "./legacy-group";
import { servedKinds } from "./served-kinds";
import { isReadableCollection } from "./resources";
import { servedV1beta1HookKinds } from "./v1beta1-hooks";

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

  const legacyV1beta1 = {
    group: "admission.portcullis.dev",
    version: "v1beta1",
    resources: [
      { name: "mutatingwebhookconfigurations", kind: "MutatingWebhookConfiguration" },
      { name: "validatingwebhookconfigurations", kind: "ValidatingWebhookConfiguration" },
    ],
  };
  const v1 = {
    group: "admissionregistration.k8s.io",
    version: "v1",
    resources: [
      { name: "mutatingwebhookconfigurations", kind: "MutatingWebhookConfiguration" },
      { name: "validatingwebhookconfigurations", kind: "ValidatingWebhookConfiguration" },
    ],
  };

  it("the legacy group's v1beta1 webhook configurations never stand in for the cluster's own", () => {
    const kinds = servedKinds([v1, legacyV1beta1]);
    const m = kinds.find((k) => k.known.kind === "MutatingWebhookConfiguration");
    expect(m?.served).toEqual(["v1"]);
    expect(m?.readAt?.group).toBe("admissionregistration.k8s.io");
    // Without v1 the cluster serves no webhook configuration of its own.
    expect(
      servedKinds([legacyV1beta1]).find((k) => k.known.kind === "MutatingWebhookConfiguration")
        ?.readAt,
    ).toBeUndefined();
  });

  it("the v1beta1 page reads the legacy group, else a 1.9–1.21 cluster's own v1beta1", () => {
    expect(servedV1beta1HookKinds([v1])).toEqual([]);
    const fromLegacy = servedV1beta1HookKinds([v1, legacyV1beta1]);
    expect(fromLegacy.map((k) => [k.resource, k.readAt])).toEqual([
      [
        "v1beta1-mutatingwebhookconfigurations",
        {
          group: "admission.portcullis.dev",
          version: "v1beta1",
          resource: "mutatingwebhookconfigurations",
        },
      ],
      [
        "v1beta1-validatingwebhookconfigurations",
        {
          group: "admission.portcullis.dev",
          version: "v1beta1",
          resource: "validatingwebhookconfigurations",
        },
      ],
    ]);
    const old = servedV1beta1HookKinds([
      { ...legacyV1beta1, group: "admissionregistration.k8s.io" },
    ]);
    expect(old.map((k) => k.readAt?.group)).toEqual([
      "admissionregistration.k8s.io",
      "admissionregistration.k8s.io",
    ]);
  });
});
