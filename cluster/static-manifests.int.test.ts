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
    for (const [plugin, dir] of Object.entries(stack.admissionManifests)) {
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
    const dir = stack.admissionManifests[plugin];
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
    expect(ours.error).toBe(
      `error loading ${path.join(dir, BROKEN)}: "${id}-not-static" in file "${path.join(dir, BROKEN)}" must have a name ending with ".static.k8s.io"`,
    );
    // The apiserver logs the same words (klog quotes the error as a Go string).
    const log = readFileSync(path.join(stack.dir, "kube-apiserver.log"), "utf8");
    expect(log).toContain(`err=${JSON.stringify(ours.error)}`);
  });
});
