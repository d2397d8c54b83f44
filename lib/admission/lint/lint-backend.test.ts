import { describe, expect, it } from "vitest";
import { lint } from "@/lib/admission/lint/lint";
import { parseCaBundle } from "@/lib/admission/health/pem";
import { hook } from "@/lib/admission/model/test-helpers";

// openssl req -x509 -newkey ec … -days 365: notBefore 2026-11-22T17:20:40Z, notAfter 2027-11-22T17:20:40Z.
const CA =
  "-----BEGIN CERTIFICATE-----\nMIIBeTCCAR+gAwIBAgIUBfQAYxQ2So+fRo/qMg6c+uvpHtIwCgYIKoZIzj0EAwIw\nEjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNjExMjIxNzIwNDBaFw0yNzExMjIxNzIw\nNDBaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC\nAATV/ubrl7DUMg+Zrdfo7RkXIgleADBKrztRq638JoDyB/ttJP127p7srP7ErF2X\nOtE286A1fkOIE8Yk+TXuTFPDo1MwUTAdBgNVHQ4EFgQUemYt2/3wiZHicHXRCeHo\nK9vHftQwHwYDVR0jBBgwFoAUemYt2/3wiZHicHXRCeHoK9vHftQwDwYDVR0TAQH/\nBAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEAtwnDFuLICwDW/fXgO6NF8CozSTLT\nMLz+eAAq8OYsS7UCIFzG4fccXhkCjyoJGDE7a7Axr11z/vUcSZUn/FhqSvrG\n-----END CERTIFICATE-----\n";
const b64 = btoa(CA);
const cfg = (...webhooks: ReturnType<typeof hook>[]) => ({
  validatingWebhookConfigurations: [{ metadata: { name: "c" }, webhooks }],
});
const only = (id: string, f: ReturnType<typeof lint>) => f.filter((x) => x.id === id);

describe("pem.ts", () => {
  it("reads the validity window and the subject from DER", () => {
    expect(parseCaBundle(b64)).toEqual([
      {
        ok: true,
        notBefore: new Date("2026-11-22T17:20:40Z"),
        notAfter: new Date("2027-11-22T17:20:40Z"),
        subject: "CN=test-ca",
      },
    ]);
  });
});

describe("L8 (no API-side caBundle check, §1.3)", () => {
  const h = hook("h", { clientConfig: { url: "https://hooks.example.com/x", caBundle: b64 } });
  it.each([
    { now: "2027-01-01T00:00:00Z", want: 0 },
    { now: "2027-11-10T00:00:00Z", want: 1 },
    { now: "2028-01-01T00:00:00Z", want: 1 },
  ])("at $now → $want finding(s)", ({ now, want }) => {
    expect(only("L8", lint({ snapshot: cfg(h), now: new Date(now) }))).toHaveLength(want);
  });
  it("flags a bundle without certificates", () => {
    expect(
      only(
        "L8",
        lint({
          snapshot: cfg(hook("h", { clientConfig: { url: "https://x", caBundle: btoa("junk") } })),
        }),
      ),
    ).toHaveLength(1);
  });
});

describe("L7 (§3.7 call errors)", () => {
  const svcHook = hook("h", { clientConfig: { service: { namespace: "w", name: "svc" } } });
  it("a missing service is critical with Fail", () => {
    expect(only("L7", lint({ snapshot: cfg(svcHook), services: [] }))[0]?.severity).toBe(
      "critical",
    );
  });
  it("no ready endpoints", () => {
    const services = [
      { metadata: { namespace: "w", name: "svc" }, spec: { ports: [{ port: 443 }] } },
    ];
    const endpointSlices = [
      {
        addressType: "IPv4",
        metadata: {
          namespace: "w",
          name: "svc-1",
          labels: { "kubernetes.io/service-name": "svc" },
        },
        endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: false } }],
      },
    ];
    expect(
      only("L7", lint({ snapshot: cfg(svcHook), services, endpointSlices })).map((f) => f.title),
    ).toEqual(["Webhook service has no ready endpoints"]);
  });
  it("localhost url (offline)", () => {
    expect(
      only(
        "L7",
        lint(
          { snapshot: cfg(hook("h", { clientConfig: { url: "https://localhost:8443/x" } })) },
          { offlineOnly: true },
        ),
      ),
    ).toHaveLength(0);
    expect(
      only(
        "L7",
        lint({ snapshot: cfg(hook("h", { clientConfig: { url: "https://localhost:8443/x" } })) }),
      ),
    ).toHaveLength(1);
  });
});
