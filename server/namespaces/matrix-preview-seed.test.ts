/** The server's first screen of the matrix is computed once per cluster state and parameters. */
import { describe, expect, it } from "vitest";
import { hook } from "@/lib/admission/model/test-helpers";
import type { KubeObject } from "@/server/kube/watch-hub";
import type { MatrixLists } from "./matrix-seed";
import { matrixPreviewSeed } from "./matrix-preview-seed";

function seed(configRv: string, nsRv = "1"): MatrixLists {
  return {
    context: "admin",
    overview: {} as MatrixLists["overview"],
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
          } as KubeObject,
        ],
      },
      "core/v1/namespaces": {
        resourceVersion: nsRv,
        items: [
          { metadata: { name: "sys", labels: { runlevel: "0" } } } as KubeObject,
          { metadata: { name: "app", labels: {} } } as KubeObject,
        ],
      },
    },
  };
}

describe("matrixPreviewSeed", () => {
  it("computes the first screen from the lists", () => {
    const p = matrixPreviewSeed(seed("10"), {});
    expect(p?.hooks.map((h) => h[3])).toEqual(["a.x.io"]);
    expect(p?.totalRows).toBeGreaterThan(0);
    // Grouped by runlevel: sys (runlevel=0) is exempt from the NotIn [0] selector, app is not.
    expect(p?.rows).toEqual([["0", 1], "sys", [null, 1], "app"]);
    expect(p?.cells).toEqual(["e", "i"]);
  });

  it("reuses it for the same state and parameters, and recomputes when either changes", () => {
    const first = matrixPreviewSeed(seed("20"), {});
    expect(matrixPreviewSeed(seed("20"), {})).toBe(first);
    expect(matrixPreviewSeed(seed("21"), {})).not.toBe(first);
    expect(matrixPreviewSeed(seed("20", "2"), {})).not.toBe(first);
    expect(matrixPreviewSeed(seed("20"), { group: "team" })).not.toBe(first);
  });
});
