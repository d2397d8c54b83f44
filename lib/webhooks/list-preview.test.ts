import { describe, expect, it } from "vitest";
import { hook } from "@/lib/admission/test-helpers";
import { webhookListPreview } from "./list-preview";
import type { ConfigLike } from "./summary";

const G = "admissionregistration.k8s.io";
const apis = [
  {
    group: G,
    version: "v1",
    preferred: true,
    resources: ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"].map((kind) => ({
      name: `${kind.toLowerCase()}s`,
      kind,
      namespaced: false,
      verbs: ["list", "watch"],
    })),
  },
];
const config = (kind: string, name: string, hooks: string[]): ConfigLike =>
  ({
    apiVersion: `${G}/v1`,
    kind,
    metadata: { name },
    webhooks: hooks.map((h) => hook(h)),
  }) as unknown as ConfigLike;
const seed = {
  overview: { apis },
  collections: {
    [`${G}/v1/validatingwebhookconfigurations`]: {
      resourceVersion: "1",
      items: [
        config("ValidatingWebhookConfiguration", "b-config", ["b1.x.io", "b2.x.io"]),
        config("ValidatingWebhookConfiguration", "a-config", ["a1.x.io"]),
      ],
    },
    [`${G}/v1/mutatingwebhookconfigurations`]: {
      resourceVersion: "1",
      items: [config("MutatingWebhookConfiguration", "m-config", ["m1.x.io"])],
    },
  },
};

describe("webhookListPreview", () => {
  it("gives the first rows in the list's own order for the URL's filters, and the counts", () => {
    const all = webhookListPreview(seed, {});
    expect(all?.rows.map((r) => r.hook)).toHaveLength(4);
    expect(all?.total).toBe(4);
    expect(all?.kinds).toHaveLength(2);
    expect(all?.kinds).toEqual(
      expect.arrayContaining([
        { kind: "MutatingWebhookConfiguration", count: 1 },
        { kind: "ValidatingWebhookConfiguration", count: 2 },
      ]),
    );
    const searched = webhookListPreview(seed, { q: "b-config", sort: "hook", dir: "desc" });
    expect(searched?.rows.map((r) => r.hook)).toEqual(["b2.x.io", "b1.x.io"]);
    expect(searched?.shown).toBe(2);
    expect(searched?.total).toBe(4);
  });

  it("leaves views that need the linter's findings to the browser", () => {
    expect(webhookListPreview(seed, { sort: "findings" })).toBeUndefined();
    expect(webhookListPreview(seed, { findings: "any" })).toBeUndefined();
    expect(webhookListPreview(undefined, {})).toBeUndefined();
  });
});
