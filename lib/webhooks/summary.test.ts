import { describe, expect, it } from "vitest";
import { hookRows, type ConfigLike } from "./summary";

const config = (name: string, timeoutSeconds?: number): ConfigLike => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name },
  webhooks: [
    { name: `a.${name}`, ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) },
    { name: `b.${name}`, failurePolicy: "Ignore" },
  ],
});

describe("hookRows", () => {
  it("makes rows once per configuration object: a live change remakes only its own", () => {
    const a = config("a");
    const b = config("b");
    const first = hookRows([a, b], "validatingwebhookconfigurations");
    expect(first.map((r) => r.id)).toEqual([
      "ValidatingWebhookConfiguration/a/0",
      "ValidatingWebhookConfiguration/a/1",
      "ValidatingWebhookConfiguration/b/0",
      "ValidatingWebhookConfiguration/b/1",
    ]);
    expect(first[0]?.timeoutSeconds).toEqual({ value: 10, defaulted: true });

    // `a` replaced (as a MODIFIED event replaces the cached object), `b` kept.
    const a2 = config("a", 3);
    const second = hookRows([a2, b], "validatingwebhookconfigurations");
    expect(second[0]?.timeoutSeconds).toEqual({ value: 3, defaulted: false });
    expect(second[0]).not.toBe(first[0]);
    expect(second[2]).toBe(first[2]);
    expect(second[3]).toBe(first[3]);
  });

  it("gives a configuration without hooks one row", () => {
    const empty: ConfigLike = { kind: "MutatingWebhookConfiguration", metadata: { name: "e" } };
    const rows = hookRows([empty], "mutatingwebhookconfigurations");
    expect(rows.map((r) => [r.id, r.position])).toEqual([["MutatingWebhookConfiguration/e/-", -1]]);
  });
});
