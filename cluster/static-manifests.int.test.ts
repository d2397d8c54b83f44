/**
 * The local control plane's static manifest directories, on the real apiserver: the seed set is
 * in force (its hash as Portcullis computes it), Portcullis reads each directory as the apiserver
 * does, and a broken set leaves the previous one in force, refused with the message Portcullis
 * gives for it, word for word.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "./harness/stack";
import {
  manifestDirs,
  manifestHashesInForce,
  manifestSetHash,
  waitForManifestSet,
  writeStaticManifests,
  STATIC_SCOPE_LABEL,
  type ManifestPluginName,
} from "./harness/static-manifests";
import { httpsRequest } from "./https-json";
import { readManifestDir } from "@/server/kube/admission-manifests";

let stack: StackInfo;
const id = `sm${Date.now().toString(36)}`;
const BROKEN = `${id}-broken.yaml`;

beforeAll(() => {
  stack = readStack();
});

afterAll(async () => {
  const hash = writeStaticManifests(stack, "ValidatingAdmissionWebhook", BROKEN, []);
  await waitForManifestSet(stack, "ValidatingAdmissionWebhook", hash);
});

/** Reload failures the apiserver has counted for a plugin. */
async function reloadFailures(plugin: ManifestPluginName): Promise<number> {
  const res = await httpsRequest(`${stack.server}/metrics`, {
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
  });
  const line = res.body
    .split("\n")
    .find(
      (l) =>
        l.startsWith("apiserver_manifest_admission_config_controller_automatic_reloads_total{") &&
        l.includes(`plugin="${plugin}"`) &&
        l.includes('status="failure"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe("static manifest directories", () => {
  it("each plugin's seed set is in force and reads as the apiserver reads it", async () => {
    const inForce = await manifestHashesInForce(stack);
    for (const [plugin, dir] of Object.entries(manifestDirs(stack))) {
      const read = readManifestDir({ dir, plugin: plugin as ManifestPluginName });
      expect(read.error).toBeUndefined();
      expect(read.objects.length).toBeGreaterThan(0);
      expect(inForce[plugin as ManifestPluginName]).toBe(read.hash);
    }
  });

  it("the seed policies act on labelled objects only", async () => {
    const ca = readFileSync(stack.caFile);
    const post = (labels: Record<string, string>) =>
      httpsRequest(`${stack.server}/api/v1/namespaces/default/configmaps?dryRun=All`, {
        method: "POST",
        ca,
        token: stack.tokens.admin,
        body: { metadata: { name: `${id}-cm`, labels }, data: { "static-deny": "1" } },
      });
    const labelled = await post({ [STATIC_SCOPE_LABEL]: "on" });
    expect(labelled.status).toBe(422);
    expect(labelled.body).toContain("ValidatingAdmissionPolicy 'seed.static.k8s.io'");
    expect((await post({})).status).toBe(201);
  });

  it("a broken reload keeps the set in force, refused with our message", async () => {
    const plugin = "ValidatingAdmissionWebhook";
    const dir = manifestDirs(stack)[plugin];
    const before = (await manifestHashesInForce(stack))[plugin];
    const failures = await reloadFailures(plugin);
    writeStaticManifests(stack, plugin, BROKEN, [
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: `${id}-not-static` },
        webhooks: [],
      },
    ]);
    await expect.poll(() => reloadFailures(plugin), { timeout: 30_000 }).toBeGreaterThan(failures);
    expect((await manifestHashesInForce(stack))[plugin]).toBe(before);
    expect(manifestSetHash(dir)).not.toBe(before);

    const ours = readManifestDir({ dir, plugin });
    // The next cases start from a directory that loads.
    const restored = writeStaticManifests(stack, plugin, BROKEN, []);
    await waitForManifestSet(stack, plugin, restored);
    expect(ours.error).toBe(
      `error loading ${path.join(dir, BROKEN)}: "${id}-not-static" in file "${path.join(dir, BROKEN)}" must have a name ending with ".static.k8s.io"`,
    );
    // The apiserver logs the same words (klog quotes the error as a Go string).
    const log = readFileSync(path.join(stack.dir, "kube-apiserver.log"), "utf8");
    expect(log).toContain(`err=${JSON.stringify(ours.error)}`);
  });

  const vwc = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: "v.portcullis.dev",
        clientConfig: { url: "https://127.0.0.1:1/v" },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        ...extra,
      },
    ],
  });
  const policy = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          {
            operations: ["CREATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["configmaps"],
          },
        ],
      },
      validations: [{ expression: "true" }],
      ...spec,
    },
  });
  it.each([
    {
      what: "a service reference",
      plugin: "ValidatingAdmissionWebhook" as const,
      objects: [
        vwc(`${id}-svc.static.k8s.io`, {
          clientConfig: { service: { namespace: "a", name: "b" } },
        }),
      ],
    },
    {
      what: "the kind's own validation",
      plugin: "ValidatingAdmissionWebhook" as const,
      objects: [vwc(`${id}-se.static.k8s.io`, { sideEffects: "Some", timeoutSeconds: 99 })],
    },
    {
      what: "another plugin's kind",
      plugin: "MutatingAdmissionWebhook" as const,
      objects: [vwc(`${id}-kind.static.k8s.io`)],
    },
    {
      what: "a version other than v1",
      plugin: "ValidatingAdmissionWebhook" as const,
      objects: [
        { ...vwc(`${id}-beta.static.k8s.io`), apiVersion: "admissionregistration.k8s.io/v1beta1" },
      ],
    },
    {
      what: "a kind outside the loader's scheme",
      plugin: "ValidatingAdmissionPolicy" as const,
      objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }],
    },
    {
      what: "a param kind",
      plugin: "ValidatingAdmissionPolicy" as const,
      objects: [
        policy(`${id}-p.static.k8s.io`, { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }),
      ],
    },
    {
      what: "a binding naming a policy the directory lacks",
      plugin: "ValidatingAdmissionPolicy" as const,
      objects: [
        {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingAdmissionPolicyBinding",
          metadata: { name: `${id}-b.static.k8s.io` },
          spec: { policyName: `${id}-none.static.k8s.io`, validationActions: ["Deny"] },
        },
      ],
    },
    {
      what: "a duplicate name",
      plugin: "ValidatingAdmissionWebhook" as const,
      objects: [vwc("seed.static.k8s.io")],
    },
  ])("refused as the apiserver refuses it: $what", async ({ plugin, objects }) => {
    const dir = manifestDirs(stack)[plugin];
    const file = `${id}-case.yaml`;
    const failures = await reloadFailures(plugin);
    try {
      writeStaticManifests(stack, plugin, file, objects);
      await expect
        .poll(() => reloadFailures(plugin), { timeout: 30_000 })
        .toBeGreaterThan(failures);
      const ours = readManifestDir({ dir, plugin });
      expect(ours.error).toBeDefined();
      const log = readFileSync(path.join(stack.dir, "kube-apiserver.log"), "utf8");
      const theirs = log
        .split("\n")
        .filter((l) => /"reloading (admission )?manifest config"/.test(l))
        .map((l) => /err=("(?:[^"\\]|\\.)*")/.exec(l)?.[1])
        .filter((e): e is string => e !== undefined)
        .map((e) => JSON.parse(e) as string);
      expect(theirs).toContain(ours.error);
    } finally {
      const hash = writeStaticManifests(stack, plugin, file, []);
      await waitForManifestSet(stack, plugin, hash);
    }
  });
});
