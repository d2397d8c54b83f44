import { describe, expect, it } from "vitest";
import { lint } from "@/lib/admission/lint/lint";
import { hook } from "@/lib/admission/model/test-helpers";
import { caNotAfter } from "@/lib/webhooks/summary";
import { assessHook } from "./health";
import { caFactsOf, judgeCaBundle } from "./ca-judgement";

// openssl req -x509 -newkey ec … -days 365: notBefore 2026-11-22T17:20:40Z, notAfter 2027-11-22T17:20:40Z.
const CA =
  "-----BEGIN CERTIFICATE-----\nMIIBeTCCAR+gAwIBAgIUBfQAYxQ2So+fRo/qMg6c+uvpHtIwCgYIKoZIzj0EAwIw\nEjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNjExMjIxNzIwNDBaFw0yNzExMjIxNzIw\nNDBaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC\nAATV/ubrl7DUMg+Zrdfo7RkXIgleADBKrztRq638JoDyB/ttJP127p7srP7ErF2X\nOtE286A1fkOIE8Yk+TXuTFPDo1MwUTAdBgNVHQ4EFgQUemYt2/3wiZHicHXRCeHo\nK9vHftQwHwYDVR0jBBgwFoAUemYt2/3wiZHicHXRCeHoK9vHftQwDwYDVR0TAQH/\nBAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEAtwnDFuLICwDW/fXgO6NF8CozSTLT\nMLz+eAAq8OYsS7UCIFzG4fccXhkCjyoJGDE7a7Axr11z/vUcSZUn/FhqSvrG\n-----END CERTIFICATE-----\n";
// A CERTIFICATE block that is base64 but no certificate (the apiserver skips it).
const GARBAGE =
  "-----BEGIN CERTIFICATE-----\nZ2FyYmFnZSBub3QgYSBjZXJ0aWZpY2F0ZQ==\n-----END CERTIFICATE-----\n";
const now = new Date("2027-01-01T00:00:00Z");

const l8 = (pem: string, failurePolicy: "Fail" | "Ignore" = "Fail") =>
  lint({
    now,
    snapshot: {
      validatingWebhookConfigurations: [
        {
          metadata: { name: "c" },
          webhooks: [
            hook("h", {
              failurePolicy,
              clientConfig: { url: "https://hooks.example.com/x", caBundle: btoa(pem) },
            }),
          ],
        },
      ],
    },
  })
    .filter((f) => f.id === "L8")
    .map((f) => f.severity);

describe("a caBundle as client-go loads it (AppendCertsFromPEM)", () => {
  it("skips a block that does not parse beside a certificate that does", () => {
    expect(l8(GARBAGE + CA)).toEqual(["info"]);
    expect(l8(CA + GARBAGE)).toEqual(["info"]);
    expect(l8(CA)).toEqual([]);
    expect(caNotAfter(btoa(GARBAGE + CA), now.getTime())).toBe("2027-11-22T17:20:40.000Z");
  });
  it("fails every call when no certificate loads", () => {
    expect(l8(GARBAGE)).toEqual(["critical"]);
    expect(l8(GARBAGE, "Ignore")).toEqual(["high"]);
    expect(caNotAfter(btoa(GARBAGE), now.getTime())).toBe("invalid");
  });
  it("the health page says the same", () => {
    const cert = { notBefore: "2026-11-22T17:20:40Z", notAfter: "2027-11-22T17:20:40Z" };
    const mixed = caFactsOf([cert], "a certificate could not be parsed", now.getTime(), 1);
    expect(judgeCaBundle(mixed, true).map((j) => `${j.severity}:${j.code}`)).toEqual([
      "info:ca-skipped-blocks",
    ]);
    const none = caFactsOf([], "a certificate could not be parsed", now.getTime());
    const health = assessHook({
      failurePolicy: "Fail",
      timeoutSeconds: 10,
      sameName: 1,
      backend: { kind: "url", serverName: "hooks.example.com" },
      probe: { status: "not-probed", reason: "test" },
      ca: none,
    });
    expect(health.reasons.map((r) => `${r.severity}:${r.code}`)).toEqual([
      "critical:ca-unreadable",
    ]);
  });
});
