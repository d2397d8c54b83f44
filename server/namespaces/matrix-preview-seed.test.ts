/** The server's first screen of the matrix is computed once per cluster state and parameters. */
import { describe, expect, it } from "vitest";
import { hook } from "@/lib/admission/test-helpers";
import { packNamespaces } from "@/lib/namespaces/collections";
import type { KubeObjectLike } from "@/lib/queries/collections";
import type { MatrixSeed } from "./matrix-seed";
import { matrixPreviewSeed } from "./matrix-preview-seed";

function seed(configRv: string, nsRv = "1"): MatrixSeed {
  return {
    context: "admin",
    overview: {} as MatrixSeed["overview"],
    collections: {
      "admissionregistration.k8s.io/v1/validatingwebhookconfigurations": {
        resourceVersion: configRv,
        items: [
          // A configuration as the watch hub holds it (the collection type names only metadata).
          {
            apiVersion: "admissionregistration.k8s.io/v1",
            kind: "ValidatingWebhookConfiguration",
            metadata: { name: "c" },
            webhooks: [
              hook("a.x.io", {
                namespaceSelector: {
                  matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0"] }],
                },
              }),
            ],
          } as KubeObjectLike,
        ],
      },
    },
    namespaces: packNamespaces(nsRv, [
      { metadata: { name: "sys", labels: { runlevel: "0" } } },
      { metadata: { name: "app", labels: {} } },
    ]),
  };
}

describe("matrixPreviewSeed", () => {
  it("computes the first screen from the seed", () => {
    const p = matrixPreviewSeed(seed("10"), {});
    expect(p?.hooks.map((h) => h.hook.name)).toEqual(["a.x.io"]);
    expect(p?.totalRows).toBeGreaterThan(0);
  });

  it("reuses it for the same state and parameters, and recomputes when either changes", () => {
    const first = matrixPreviewSeed(seed("20"), {});
    expect(matrixPreviewSeed(seed("20"), {})).toBe(first);
    expect(matrixPreviewSeed(seed("21"), {})).not.toBe(first);
    expect(matrixPreviewSeed(seed("20", "2"), {})).not.toBe(first);
    expect(matrixPreviewSeed(seed("20"), { group: "team" })).not.toBe(first);
  });
});
