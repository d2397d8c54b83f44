/**
 * Static objects are shown as API objects of their kinds would be: to an identity the apiserver
 * lets list that kind (asked with SelfSubjectAccessReview on the real apiserver).
 */
import { describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import { manifestDirs, type ManifestPluginName } from "../../cluster/harness/static-manifests";
import { KubeClient } from "./client";
import { kubeConfigFor } from "./config";
import { readManifestDir } from "./admission-manifests";
import { visibleManifestDirs } from "./admission-manifests-access";

function clientAs(user: string | undefined): KubeClient {
  const stack = readStack();
  const kc = kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]);
  if (user === undefined) return new KubeClient(stack.contexts.admin, kc);
  // The admin impersonating a user no role names.
  return new KubeClient(stack.contexts.admin, kc, async () => ({
    Authorization: `Bearer ${stack.tokens.admin}`,
    "Impersonate-User": user,
  }));
}

describe("visibleManifestDirs", () => {
  const stack = readStack();
  const dirs = (Object.keys(manifestDirs(stack)) as ManifestPluginName[]).map((plugin) =>
    readManifestDir({ dir: manifestDirs(stack)[plugin], plugin }),
  );
  const count = (ds: readonly { objects: readonly unknown[] }[]) =>
    ds.reduce((n, d) => n + d.objects.length, 0);

  it("an identity that may list admission objects sees every static one", async () => {
    expect(count(dirs)).toBeGreaterThan(0);
    expect(count(await visibleManifestDirs(clientAs(undefined), dirs))).toBe(count(dirs));
  });

  it("one that may not sees none, the directories' state kept", async () => {
    const seen = await visibleManifestDirs(clientAs("portcullis-nobody"), dirs);
    expect(count(seen)).toBe(0);
    expect(seen.map((d) => d.hash)).toEqual(dirs.map((d) => d.hash));
  });
});
