import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/compile";
import { exemptionMatrix } from "@/lib/admission/exemptions";
import { hook } from "@/lib/admission/test-helpers";
import { DEFAULT_PARAMS } from "@/lib/namespaces/matrix-params";
import { matrixPreview } from "@/lib/namespaces/matrix-preview";

const NS = (name: string, extra: Record<string, string> = {}) => ({
  "kubernetes.io/metadata.name": name,
  ...extra,
});

describe("matrixPreview", () => {
  const m = exemptionMatrix(
    compileSnapshot({
      validatingWebhookConfigurations: [
        {
          metadata: { name: "c" },
          webhooks: [
            hook("a.x.io", {
              namespaceSelector: {
                matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0"] }],
              },
            }),
            hook("cm.x.io", {
              rules: [
                {
                  operations: ["CREATE"],
                  apiGroups: [""],
                  apiVersions: ["v1"],
                  resources: ["configmaps"],
                },
              ],
            }),
            hook("b.x.io", { failurePolicy: "Ignore" }),
          ],
        },
      ],
      namespaces: { sys: NS("sys", { runlevel: "0" }), app: NS("app"), web: NS("web") },
    }),
  );
  it("cuts the shown rows and columns, with the cells the full matrix reads", () => {
    const p = matrixPreview(m, DEFAULT_PARAMS, "", 4, 5);
    expect(p.hooks.map((h) => h.hook.name)).toEqual(["a.x.io", "b.x.io"]);
    expect(p.rows.map((r) => (r.kind === "group" ? `#${r.value ?? "-"}` : r.name))).toEqual([
      "#0",
      "sys",
      "#-",
      "app",
    ]);
    expect(p.cells).toEqual(["", "01", "", "11"]);
    expect(p).toMatchObject({ totalRows: 5, totalColumns: 2, groupBy: "runlevel" });
  });
  it("applies the filters", () => {
    const p = matrixPreview(m, { ...DEFAULT_PARAMS, failurePolicy: "Ignore", all: true }, "x");
    expect(p.hooks.map((h) => h.hook.name)).toEqual(["b.x.io"]);
    expect(p.params).toBe("x");
  });
});
