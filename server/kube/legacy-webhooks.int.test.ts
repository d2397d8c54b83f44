/**
 * The v1beta1 webhook configurations against the real control plane, served as custom resources
 * in the legacy group (cluster/legacy-crds.ts): discovery finds them there and keeps them apart
 * from the cluster's own v1 kinds; list and watch; create through the dashboard's write path;
 * an update with a stale resourceVersion is refused with 409 and leaves the object unchanged;
 * delete with preconditions. Also: the access review of the historical kinds per identity, the
 * admission state's separate lists, and the uninitialized-objects reader on a cluster that
 * cannot hold objects back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import { LEGACY_ADMISSION_GROUP } from "../../cluster/legacy-crds";
import type { KubeClient } from "./client";
import { kubeClientFor, type WatchEvent } from "./client";
import { admissionApis } from "./discovery";
import { legacyAdmissionAccess } from "./access";
import { readAdmissionState } from "./admission-state";
import { legacyTarget } from "./legacy-admission";
import { readUninitialized } from "./uninitialized";
import { writableTarget } from "./webhook-input";
import {
  createConfiguration,
  deleteConfiguration,
  getConfiguration,
  replaceConfiguration,
} from "./webhooks";
import { KubeApiError } from "@/lib/k8s/errors";
import { servedV1beta1HookKinds } from "@/lib/k8s/v1beta1-hooks";
import { servedKinds } from "@/lib/k8s/served-kinds";
import type { ConfigObject } from "@/lib/api/webhooks";

const MWC = `/apis/${LEGACY_ADMISSION_GROUP}/v1beta1/mutatingwebhookconfigurations`;
let admin: KubeClient;
let viewer: KubeClient;
let editor: KubeClient;
const created: string[] = [];

beforeAll(() => {
  const stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  process.env.PORTCULLIS_LEGACY_ADMISSION_GROUP = LEGACY_ADMISSION_GROUP;
  admin = kubeClientFor(stack.contexts.admin);
  viewer = kubeClientFor(stack.contexts.viewer);
  editor = kubeClientFor(stack.contexts.editor);
});

afterAll(async () => {
  for (const name of created)
    await admin.request({ method: "DELETE", path: `${MWC}/${name}` }).catch(() => undefined);
});

function config(name: string, hooks: string[]): ConfigObject {
  return {
    apiVersion: `${LEGACY_ADMISSION_GROUP}/v1beta1`,
    kind: "MutatingWebhookConfiguration",
    metadata: { name },
    webhooks: hooks.map((h) => ({
      name: h,
      clientConfig: { service: { namespace: "hooks", name: "inject" } },
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
      ],
    })),
  };
}

describe("v1beta1 webhook configurations in the legacy group", () => {
  it("discovery finds them in the legacy group and keeps them apart from the v1 kinds", async () => {
    const apis = await admissionApis(admin);
    const v1beta1 = servedV1beta1HookKinds(apis);
    expect(v1beta1.map((k) => [k.resource, k.readAt])).toEqual([
      [
        "v1beta1-mutatingwebhookconfigurations",
        {
          group: LEGACY_ADMISSION_GROUP,
          version: "v1beta1",
          resource: "mutatingwebhookconfigurations",
        },
      ],
      [
        "v1beta1-validatingwebhookconfigurations",
        {
          group: LEGACY_ADMISSION_GROUP,
          version: "v1beta1",
          resource: "validatingwebhookconfigurations",
        },
      ],
    ]);
    const own = servedKinds(apis).find((k) => k.known.kind === "MutatingWebhookConfiguration");
    expect(own?.readAt).toEqual({
      group: "admissionregistration.k8s.io",
      version: "v1",
      resource: "mutatingwebhookconfigurations",
    });
    expect(writableTarget("v1beta1-mutatingwebhookconfigurations")).toEqual({
      collection: MWC,
      apiVersion: `${LEGACY_ADMISSION_GROUP}/v1beta1`,
      kind: "MutatingWebhookConfiguration",
      hooksField: "webhooks",
    });
  });

  it("creates, lists, watches, refuses a stale update with 409 (object unchanged), deletes", async () => {
    const t = legacyTarget("v1beta1-mutatingwebhookconfigurations");
    const name = `int-v1beta1-${Date.now()}`;
    created.push(name);

    // A watch opened first sees the create and the update as they happen.
    const list0 = await admin.request<{ metadata: { resourceVersion: string } }>({ path: MWC });
    const events: WatchEvent<ConfigObject>[] = [];
    const abort = new AbortController();
    const watching = admin
      .watch<ConfigObject>(
        {
          path: MWC,
          query: { resourceVersion: list0.metadata.resourceVersion },
          signal: abort.signal,
        },
        (e) => {
          if (e.object?.metadata?.name === name) events.push(e);
        },
      )
      .catch(() => undefined);

    // The dry run stores nothing.
    await createConfiguration(admin, t, config(name, ["a.example.com"]), { dryRun: true });
    await expect(getConfiguration(admin, t, name)).rejects.toMatchObject({ status: 404 });

    const stored = await createConfiguration(
      admin,
      t,
      config(name, ["a.example.com", "b.example.com"]),
      {
        dryRun: false,
      },
    );
    const rv = stored.metadata?.resourceVersion ?? "";
    expect(rv).toMatch(/^\d+$/);

    const list = await admin.request<{ items: ConfigObject[] }>({ path: MWC });
    expect(list.items.map((i) => i.metadata?.name)).toContain(name);

    // Reorder (what the page saves): b before a, with the resourceVersion precondition.
    const reordered = await replaceConfiguration(
      admin,
      t,
      name,
      { ...stored, webhooks: [...(stored.webhooks as Record<string, unknown>[])].reverse() },
      { dryRun: false },
    );
    expect((reordered.webhooks as Array<{ name: string }>).map((w) => w.name)).toEqual([
      "b.example.com",
      "a.example.com",
    ]);

    // The same stale resourceVersion again: 409, and the stored object is the reordered one.
    const stale = replaceConfiguration(
      admin,
      t,
      name,
      { ...stored, webhooks: [] },
      { dryRun: false },
    );
    await expect(stale).rejects.toBeInstanceOf(KubeApiError);
    await expect(stale).rejects.toMatchObject({ status: 409, reason: "Conflict" });
    const after = await getConfiguration(admin, t, name);
    expect(after.metadata?.resourceVersion).toBe(reordered.metadata?.resourceVersion);
    expect((after.webhooks as Array<{ name: string }>).map((w) => w.name)).toEqual([
      "b.example.com",
      "a.example.com",
    ]);

    // Delete with a stale precondition is refused; with the current one it goes.
    await expect(
      deleteConfiguration(admin, t, name, { uid: after.metadata?.uid, resourceVersion: rv }),
    ).rejects.toMatchObject({ status: 409 });
    await deleteConfiguration(admin, t, name, {
      uid: after.metadata?.uid,
      resourceVersion: after.metadata?.resourceVersion,
    });
    await expect(getConfiguration(admin, t, name)).rejects.toMatchObject({ status: 404 });

    await expect
      .poll(() => events.map((e) => e.type), { timeout: 10_000 })
      .toEqual(["ADDED", "MODIFIED", "DELETED"]);
    abort.abort();
    await watching;
  });

  it("the admission state reads them into lists of their own, never the cluster's hooks", async () => {
    const name = `int-v1beta1-state-${Date.now()}`;
    created.push(name);
    await createConfiguration(
      admin,
      legacyTarget("v1beta1-mutatingwebhookconfigurations"),
      config(name, ["state.example.com"]),
      { dryRun: false },
    );
    const { snapshot } = await readAdmissionState(admin);
    const names = (xs: readonly { metadata?: { name?: string } }[] | undefined) =>
      (xs ?? []).map((x) => x.metadata?.name);
    expect(names(snapshot.legacyMutatingWebhookConfigurations)).toContain(name);
    expect(names(snapshot.mutatingWebhookConfigurations)).not.toContain(name);
  });

  it("the access review answers per identity: the viewer reads only, the editor writes", async () => {
    const [v, e] = await Promise.all([
      legacyAdmissionAccess(viewer),
      legacyAdmissionAccess(editor),
    ]);
    for (const r of [
      "v1beta1-mutatingwebhookconfigurations",
      "v1beta1-validatingwebhookconfigurations",
      "initializerconfigurations",
      "externaladmissionhookconfigurations",
    ] as const) {
      expect(v[r]).toMatchObject({
        list: true,
        watch: true,
        create: false,
        update: false,
        delete: false,
      });
      expect(e[r]).toMatchObject({ list: true, create: true, update: true, delete: true });
    }
    // The apiserver agrees: the viewer's write is refused.
    await expect(
      createConfiguration(
        viewer,
        legacyTarget("v1beta1-validatingwebhookconfigurations"),
        { ...config(`int-viewer-${Date.now()}`, []), kind: "ValidatingWebhookConfiguration" },
        { dryRun: true },
      ),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("uninitialized objects: a current apiserver serves no InitializerConfiguration to hold them", async () => {
    const r = await readUninitialized(admin, { stuckAfterSeconds: 600 });
    expect(r.served).toBe(false);
  });
});
