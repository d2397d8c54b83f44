/**
 * PodSecurity in the prediction: it runs after the mutating hooks and before the validating
 * ones, so a certain refusal leaves the mutating hooks called and the validating ones not.
 */
import { describe, expect, it } from "vitest";
import { predict } from "@/lib/admission/prediction/predict";
import { reportOf } from "@/lib/admission/report/predict-report";
import { makeRequest } from "@/lib/admission/model/request";
import { hook } from "@/lib/admission/model/test-helpers";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

const pods = [
  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
];
const ENFORCE = "pod-security.kubernetes.io/enforce";

const snap = (mutating: boolean): AdmissionSnapshot => ({
  namespaces: { locked: { [ENFORCE]: "restricted" }, open: {} },
  mutatingWebhookConfigurations: mutating
    ? [{ metadata: { name: "m" }, webhooks: [hook("m.example.com", { rules: pods })] }]
    : [],
  validatingWebhookConfigurations: [
    { metadata: { name: "v" }, webhooks: [hook("v.example.com", { rules: pods })] },
  ],
  validatingAdmissionPolicies: [],
});

const create = (namespace: string) =>
  makeRequest({
    resource: "pods",
    operation: "CREATE",
    namespace,
    name: "web",
    kind: { kind: "Pod" },
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    },
  });

const MESSAGE =
  'pods "web" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe("PodSecurity in the prediction", () => {
  it("refuses a pod the namespace's enforced standard forbids: no validating hook is called", () => {
    const explained = predict(create("locked"), snap(false));
    const p = explained.prediction;
    expect(p.podSecurity?.rejects).toBe(true);
    expect(p.podSecurity?.rejection).toEqual({ status: 403, message: MESSAGE });
    expect(p.calls).toEqual([]);
    expect(p.skips.map((s) => `${s.hook.name}:${s.reason.code}`)).toEqual([
      "v.example.com:excluded",
    ]);
    const r = reportOf(explained, {} as Parameters<typeof reportOf>[1], []);
    expect(r.admitted).toBe(false);
    expect(r.podSecurity).toMatchObject({ enforce: "restricted:latest", rejects: true });
  });

  it("is not certain when a mutating hook called before it may change the pod", () => {
    const p = predict(create("locked"), snap(true)).prediction;
    expect(p.podSecurity?.rejects).toBe(false);
    expect(p.podSecurity?.rejection?.message).toBe(MESSAGE);
    expect(p.podSecurity?.undecided).toMatch(/one mutating hook may be called before it/);
    expect(p.calls.map((c) => c.hook.name)).toEqual(["m.example.com", "v.example.com"]);
  });

  it("lets the pod through where the namespace enforces nothing", () => {
    const p = predict(create("open"), snap(false)).prediction;
    expect(p.podSecurity?.rejection).toBeUndefined();
    expect(p.calls.map((c) => c.hook.name)).toEqual(["v.example.com"]);
  });
});

// pod-security-admission v0.37.2 allows two more sysctls at baseline from v1.37
// (net.ipv4.tcp_slow_start_after_idle, net.ipv4.tcp_notsent_lowat); on a 1.36 apiserver `latest`
// is 1.36's set, which forbids them.
describe("PodSecurity's latest is the apiserver's own minor", () => {
  const sysctlPod = makeRequest({
    resource: "pods",
    operation: "CREATE",
    namespace: "base",
    name: "web",
    kind: { kind: "Pod" },
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace: "base" },
      spec: {
        containers: [{ name: "app", image: "nginx" }],
        securityContext: { sysctls: [{ name: "net.ipv4.tcp_notsent_lowat", value: "16384" }] },
      },
    },
  });
  const at = (minor: "1.36" | "1.37") =>
    predict(sysctlPod, {
      namespaces: { base: { [ENFORCE]: "baseline" } },
      kubernetes: { minor, source: "flag" },
    }).prediction.podSecurity;
  it.each([
    { minor: "1.36", rejects: true },
    { minor: "1.37", rejects: false },
  ] as const)("on $minor baseline:latest refuses it: $rejects", ({ minor, rejects }) => {
    expect(at(minor)?.rejects).toBe(rejects);
  });
});
