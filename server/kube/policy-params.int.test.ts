/**
 * What bindings' params resolve to, read from the real apiserver: found by name and by selector,
 * missing (with parameterNotFoundAction), per request namespace, a kind the cluster does not
 * serve, no paramRef, a missing policy — and the viewer, who may not read ConfigMaps; and the
 * paramKinds the admission state lists as not served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import type { KubeClient } from "./client";
import { kubeClientFor } from "./client";
import { paramKindKey } from "@/lib/admission/model/params";
import { readAdmissionState } from "./admission-state";
import { policyParamsReport } from "./policy-params";
import { dryRunCreate } from "./try-request";

const G = "/apis/admissionregistration.k8s.io/v1";
const P = `pp-${Date.now().toString(36)}`;
let admin: KubeClient;
let viewer: KubeClient;
const created: string[] = [];

async function make(path: string, body: Record<string, unknown>): Promise<void> {
  await admin.request({ method: "POST", path, body });
  const name = (body.metadata as { name: string }).name;
  created.push(`${path}/${name}`);
}

const rules = [
  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
];

function policy(name: string, paramKind?: { apiVersion: string; kind: string }) {
  return make(`${G}/validatingadmissionpolicies`, {
    metadata: { name },
    spec: {
      ...(paramKind ? { paramKind } : {}),
      matchConstraints: {
        resourceRules: rules,
        objectSelector: { matchLabels: { "portcullis-never": "set" } },
      },
      validations: [{ expression: "true" }],
    },
  });
}

function binding(name: string, policyName: string, paramRef?: Record<string, unknown>) {
  return make(`${G}/validatingadmissionpolicybindings`, {
    metadata: { name },
    spec: { policyName, validationActions: ["Deny"], ...(paramRef ? { paramRef } : {}) },
  });
}

beforeAll(async () => {
  const stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  admin = kubeClientFor(stack.contexts.admin);
  viewer = kubeClientFor(stack.contexts.viewer);
  await make("/api/v1/namespaces/default/configmaps", {
    metadata: { name: `${P}-p1`, namespace: "default", labels: { set: P } },
  });
  await make("/api/v1/namespaces/default/configmaps", {
    metadata: { name: `${P}-p2`, namespace: "default", labels: { set: P } },
  });
  const cm = { apiVersion: "v1", kind: "ConfigMap" };
  await policy(`${P}-cm`, cm);
  await policy(`${P}-plain`);
  await policy(`${P}-crd`, { apiVersion: "example.invalid/v1", kind: "Nothing" });
  await policy(`${P}-nokind`, { apiVersion: "v1", kind: "Nope" });
  await binding(`${P}-byname`, `${P}-cm`, {
    name: `${P}-p1`,
    namespace: "default",
    parameterNotFoundAction: "Deny",
  });
  await binding(`${P}-bysel`, `${P}-cm`, {
    selector: { matchLabels: { set: P } },
    namespace: "default",
    parameterNotFoundAction: "Deny",
  });
  await binding(`${P}-absent`, `${P}-cm`, {
    name: `${P}-nope`,
    namespace: "default",
    parameterNotFoundAction: "Allow",
  });
  await binding(`${P}-perreq`, `${P}-cm`, { name: "settings", parameterNotFoundAction: "Deny" });
  await binding(`${P}-noref`, `${P}-cm`);
  await binding(`${P}-plain`, `${P}-plain`);
  await binding(`${P}-crd`, `${P}-crd`, { name: "x", parameterNotFoundAction: "Deny" });
  await binding(`${P}-orphan`, `${P}-gone`);
});

afterAll(async () => {
  for (const path of created.reverse())
    await admin.request({ method: "DELETE", path }).catch(() => undefined);
});

const key = (n: string) => `validatingadmissionpolicybindings/${P}-${n}`;

describe("policyParamsReport", () => {
  it("resolves every binding as the apiserver would", async () => {
    const r = (await policyParamsReport(admin)).bindings;
    expect(r[key("byname")]).toMatchObject({
      state: "found",
      resource: "configmaps",
      namespaced: true,
      objects: [{ namespace: "default", name: `${P}-p1` }],
    });
    expect(r[key("bysel")]).toMatchObject({ state: "found", total: 2 });
    expect(r[key("absent")]).toMatchObject({ state: "missing", parameterNotFoundAction: "Allow" });
    expect(r[key("absent")]?.message).toContain("admitted without this policy's checks");
    expect(r[key("perreq")]?.state).toBe("per-request");
    expect(r[key("noref")]?.state).toBe("no-param-ref");
    expect(r[key("plain")]?.state).toBe("not-needed");
    expect(r[key("crd")]?.state).toBe("kind-not-served");
    expect(r[key("orphan")]?.state).toBe("policy-missing");
  });

  it("reports what the identity may not read as an error, not as missing", async () => {
    const r = (await policyParamsReport(viewer)).bindings;
    expect(r[key("byname")]?.state).toBe("error");
    expect(r[key("byname")]?.message).toContain("forbidden");
  });
});

describe("readAdmissionState", () => {
  it("lists the paramKinds the cluster does not serve (a group, or a kind of a served group)", async () => {
    const { snapshot } = await readAdmissionState(admin);
    expect(snapshot.unservedParamKinds).toEqual(
      expect.arrayContaining([
        paramKindKey("example.invalid/v1", "Nothing"),
        paramKindKey("v1", "Nope"),
      ]),
    );
    expect(snapshot.unservedParamKinds).not.toContain(paramKindKey("v1", "ConfigMap"));
  });
});

describe("dryRunCreate", () => {
  it("stores nothing and returns the object as it would be stored", async () => {
    const res = await dryRunCreate(admin, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${P}-dry`, namespace: "default" },
    });
    expect(res).toMatchObject({ allowed: true, resource: "configmaps", namespace: "default" });
    await expect(
      admin.request({ path: `/api/v1/namespaces/default/configmaps/${P}-dry` }),
    ).rejects.toMatchObject({ status: 404 });
  });
  it("returns a refusal as the answer, with the apiserver's status", async () => {
    const res = await dryRunCreate(viewer, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${P}-dry`, namespace: "default" },
    });
    expect(res.allowed).toBe(false);
    expect(res.error).toMatchObject({ status: 403, reason: "Forbidden" });
  });
  it("says when the kind is not served", async () => {
    await expect(
      dryRunCreate(admin, { apiVersion: "example.invalid/v1", kind: "Nothing" }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
