/**
 * The server's first screen of the matrix holds the static hooks of the manifest directories the
 * dashboard was given, marked with their file, as the browser's whole matrix does.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hook } from "@/lib/admission/model/test-helpers";
import { manifestWatcherFromEnv } from "@/server/kube/admission-manifests";
import type { KubeObject } from "@/server/kube/watch-hub";
import type { MatrixLists } from "./matrix-seed";
import { matrixPreviewSeed } from "./matrix-preview-seed";

const dir = mkdtempSync(path.join(tmpdir(), "matrix-static-"));
const staticConfig = (hookName: string) =>
  [
    "apiVersion: admissionregistration.k8s.io/v1",
    "kind: ValidatingWebhookConfiguration",
    "metadata:",
    "  name: s.static.k8s.io",
    "webhooks:",
    `  - name: ${hookName}`,
    "    clientConfig: { url: 'https://127.0.0.1:1/hook' }",
    "    sideEffects: None",
    "    admissionReviewVersions: [v1]",
    "    rules: [{ operations: [CREATE], apiGroups: [''], apiVersions: [v1], resources: [pods] }]",
    "",
  ].join("\n");
writeFileSync(path.join(dir, "s.yaml"), staticConfig("s.x.io"));
process.env.PORTCULLIS_ADMISSION_MANIFESTS = `ValidatingAdmissionWebhook=${dir}`;

afterAll(() => {
  manifestWatcherFromEnv()?.close();
  rmSync(dir, { recursive: true, force: true });
});

const lists: MatrixLists = {
  context: "admin",
  overview: {} as MatrixLists["overview"],
  collections: {
    "admissionregistration.k8s.io/v1/validatingwebhookconfigurations": {
      resourceVersion: "5",
      items: [
        {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          metadata: { name: "c" },
          webhooks: [hook("a.x.io")],
        } as KubeObject,
      ],
    },
    "core/v1/namespaces": {
      resourceVersion: "1",
      items: [{ metadata: { name: "app", labels: {} } } as KubeObject],
    },
  },
};

describe("matrixPreviewSeed with static manifests", () => {
  it("has the static hooks as columns, with their file, and follows a change of the files", () => {
    const first = matrixPreviewSeed(lists, {});
    expect(first?.hooks.map((h) => h[3])).toEqual(["s.x.io", "a.x.io"]);
    expect(first?.origins?.[0]).toMatchObject({ kind: "manifest", file: path.join(dir, "s.yaml") });
    expect(first?.origins?.[1]).toBeUndefined();

    // Same cluster state, other files: a new first screen, not the one remembered.
    writeFileSync(path.join(dir, "s.yaml"), staticConfig("t.x.io"));
    manifestWatcherFromEnv()?.reread();
    expect(matrixPreviewSeed(lists, {})?.hooks.map((h) => h[3])).toEqual(["t.x.io", "a.x.io"]);
  });
});
