import { describe, expect, it } from "vitest";
import { lint } from "@/lib/admission/lint/lint";
import { hook } from "@/lib/admission/model/test-helpers";
import { endpointsForPort, judgeServiceBackend, serviceBackendFacts } from "./backend-judgement";
import type { V1EndpointSlice, V1Service } from "@/lib/k8s/types";

const svc = (spec: V1Service["spec"]): V1Service => ({
  metadata: { namespace: "w", name: "svc" },
  spec,
});
const slice = (ports: V1EndpointSlice["ports"], ready = true): V1EndpointSlice => ({
  addressType: "IPv4",
  metadata: { namespace: "w", name: "svc-1", labels: { "kubernetes.io/service-name": "svc" } },
  ports,
  endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready } }],
});
const codes = (s: V1Service | undefined, slices: V1EndpointSlice[] | undefined, port = 443) =>
  judgeServiceBackend(serviceBackendFacts(s, slices, port), true).map(
    (j) => `${j.severity}:${j.code}`,
  );

describe("the service resolver's judgement (pkg/util/proxy ResolveCluster / ResolveEndpoint)", () => {
  const named = svc({ ports: [{ name: "https", port: 443, targetPort: 8443 }] });
  it("calls only endpoints on a slice port named like the Service port", () => {
    expect(codes(named, [slice([{ name: "https", port: 8443 }])])).toEqual([]);
    expect(codes(named, [slice([{ name: "web", port: 8443 }])])).toEqual([
      "critical:no-ready-endpoints",
    ]);
    const why = judgeServiceBackend(
      serviceBackendFacts(named, [slice([{ name: "web", port: 8443 }])], 443),
      true,
    )[0]?.message;
    expect(why).toContain('none on an EndpointSlice port named "https"');
    // An unnamed Service port matches the controller's name "", not a slice port without a name
    // or without a port number.
    const unnamed = svc({ ports: [{ port: 443 }] });
    expect(codes(unnamed, [slice([{ name: "", port: 8443 }])])).toEqual([]);
    expect(codes(unnamed, [slice([{ port: 8443 }])])).toEqual(["critical:no-ready-endpoints"]);
    expect(codes(unnamed, [slice([{ name: "" }])])).toEqual(["critical:no-ready-endpoints"]);
    expect(endpointsForPort([slice([{ name: "a", port: 1 }], false)], "a")).toEqual({
      ready: 0,
      readyOnOtherPorts: 0,
    });
  });
  it("asks an ExternalName Service for neither a port nor endpoints", () => {
    const external = svc({ type: "ExternalName", externalName: "hooks.example.com" });
    expect(codes(external, [])).toEqual(["medium:external-name-service"]);
  });
  it("warns of a headless Service without calling it unreachable, and names a missing port", () => {
    const headless = svc({ clusterIP: "None", ports: [{ name: "https", port: 443 }] });
    expect(codes(headless, [slice([{ name: "https", port: 8443 }])])).toEqual([
      "high:headless-service",
    ]);
    expect(codes(named, [slice([{ name: "https", port: 8443 }])], 444)).toEqual([
      "critical:service-port-missing",
    ]);
    expect(codes(undefined, undefined)).toEqual(["critical:service-missing"]);
    // Endpoint slices not read: nothing said about endpoints.
    expect(codes(named, undefined)).toEqual([]);
  });
});

describe("L7 judges as the health page does", () => {
  const cfg = (port: number) => ({
    validatingWebhookConfigurations: [
      {
        metadata: { name: "c" },
        webhooks: [
          hook("h", {
            failurePolicy: "Fail",
            clientConfig: { service: { namespace: "w", name: "svc", port } },
          }),
        ],
      },
    ],
  });
  const l7 = (services: V1Service[], endpointSlices: V1EndpointSlice[], port = 8443) =>
    lint({ snapshot: cfg(port), services, endpointSlices })
      .filter((f) => f.id === "L7")
      .map((f) => `${f.severity}:${f.title}`);
  it("no port or endpoint alarm for an ExternalName Service", () => {
    expect(
      l7(
        [svc({ type: "ExternalName", externalName: "x.example.com", ports: [{ port: 443 }] })],
        [],
      ),
    ).toEqual(["medium:ExternalName webhook service"]);
  });
  it("a headless Service is a warning, not a certain failure", () => {
    expect(
      l7(
        [svc({ clusterIP: "None", ports: [{ name: "https", port: 8443 }] })],
        [slice([{ name: "https", port: 8443 }])],
      ),
    ).toEqual(["high:Headless webhook service"]);
  });
  it("endpoints under another port name are not ready endpoints", () => {
    expect(
      l7([svc({ ports: [{ name: "https", port: 8443 }] })], [slice([{ name: "web", port: 1 }])]),
    ).toEqual(["critical:Webhook service has no ready endpoints"]);
  });
  it("a missing port alone, not also no endpoints", () => {
    expect(
      l7([svc({ ports: [{ name: "https", port: 443 }] })], [slice([{ name: "https", port: 1 }])]),
    ).toEqual(["critical:Webhook service port missing"]);
  });
});
