import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import {
  EXEMPT,
  INTERCEPTED,
  NOT_MATCHED,
  exemptionMatrix,
} from "@/lib/admission/exemptions/exemptions";
import { cellReader } from "@/lib/admission/exemptions/exemption-views";
import { hook } from "@/lib/admission/model/test-helpers";
import { DEFAULT_PARAMS } from "@/lib/namespaces/matrix-params";
import {
  decodeRuns,
  encodeRuns,
  matrixPreview,
  previewCell,
  unpackPreview,
  visibleColumns,
  visibleRows,
} from "@/lib/namespaces/matrix-preview";

const NS = (name: string, extra: Record<string, string> = {}) => ({
  "kubernetes.io/metadata.name": name,
  ...extra,
});

describe("encodeRuns / decodeRuns", () => {
  it("writes runs as a letter and a length over one", () => {
    expect(encodeRuns([0, 0, 0, 1, 2, 2])).toBe("e3ix2");
    expect(encodeRuns([])).toBe("");
    expect(encodeRuns(new Uint8Array(12).fill(INTERCEPTED))).toBe("i12");
    expect(encodeRuns([EXEMPT, INTERCEPTED, NOT_MATCHED])).toBe("eix");
  });

  it("round-trips any row, runs of every length included", () => {
    // A small seeded generator (LCG), so every run sees the same rows.
    let seed = 3;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) / 65536;
    for (let t = 0; t < 500; t++) {
      const n = Math.floor(rnd() * 300);
      const runs = rnd() < 0.5;
      const row = new Uint8Array(n);
      for (let i = 0; i < n; i++)
        row[i] = runs && i > 0 && rnd() < 0.9 ? (row[i - 1] as number) : Math.floor(rnd() * 3);
      const text = encodeRuns(row);
      // Never longer than one letter per cell.
      expect(text.length).toBeLessThanOrEqual(n);
      expect(decodeRuns(text, n)).toEqual(row);
    }
  });

  it("refuses anything it did not write", () => {
    expect(() => encodeRuns([3])).toThrow(/cannot be encoded/);
    expect(() => decodeRuns("e3y", 4)).toThrow(/bad run/);
    expect(() => decodeRuns("3e", 3)).toThrow(/bad run/);
    expect(() => decodeRuns("e1", 1)).toThrow(/run length/);
    expect(() => decodeRuns("e0", 0)).toThrow(/run length/);
    expect(() => decodeRuns("e3", 2)).toThrow(/more than 2/);
    expect(() => decodeRuns("e3", 4)).toThrow(/3 cells, not 4/);
  });
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
            hook("b.x.io", {
              failurePolicy: "Ignore",
              objectSelector: { matchLabels: { app: "x" } },
            }),
          ],
        },
      ],
      mutatingWebhookConfigurations: [
        {
          metadata: { name: "m" },
          webhooks: [
            hook("name.x.io", {
              namespaceSelector: {
                matchExpressions: [
                  { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["web"] },
                ],
              },
            }),
          ],
        },
      ],
      namespaces: { sys: NS("sys", { runlevel: "0" }), app: NS("app"), web: NS("web") },
    }),
  );

  it("cuts the shown rows and columns, packed: configurations once, cells as runs", () => {
    const p = matrixPreview(m, DEFAULT_PARAMS, "", 4, 5);
    expect(p.configurations).toEqual(["m", "c"]);
    expect(p.hooks).toEqual([
      [0, 0, 1, "name.x.io"],
      [1, 1, 1, "a.x.io"],
      [1, 1, 2, "b.x.io"],
    ]);
    expect(p.rows).toEqual([["0", 1], "sys", [null, 2], "app"]);
    expect(p.cells).toEqual(["iei", "i3"]);
    expect(p).toMatchObject({ totalRows: 5, totalColumns: 3, groupBy: "runlevel" });
  });

  it("unpacks to the rows, columns and cells the whole matrix has", () => {
    const params = { ...DEFAULT_PARAMS, all: true };
    const u = unpackPreview(matrixPreview(m, params, "?all=1"));
    const rows = visibleRows(m, params);
    const cols = visibleColumns(m, params);
    const read = cellReader(m);
    expect(u.rows.map((r) => (r.kind === "group" ? [r.value, r.count] : r.name))).toEqual(
      rows.map((r) => (r.kind === "group" ? [r.value, r.count] : r.name)),
    );
    expect(u.hooks).toEqual(
      cols.map((h) => {
        const x = m.hooks[h];
        return {
          hook: {
            source: x?.hook.source,
            configuration: x?.hook.configuration,
            name: x?.hook.name,
          },
          failurePolicy: x?.failurePolicy,
          conditional: x?.conditional,
        };
      }),
    );
    u.rows.forEach((r, i) => {
      const whole = rows[i];
      if (r.kind !== "namespace" || whole?.kind !== "namespace") return;
      expect(r.value).toBe(whole.value);
      cols.forEach((h, j) => expect(previewCell(u, r.g, j)).toBe(read(whole.name, whole.g, h)));
    });
    // The name-dependent selector exempts web alone in its label set.
    const web = u.rows.find((r) => r.kind === "namespace" && r.name === "web");
    expect(web && web.kind === "namespace" && previewCell(u, web.g, 0)).toBe(EXEMPT);
    expect(u.params).toBe("?all=1");
  });

  it("carries a static hook's origin, so the first screen marks it as the whole matrix does", () => {
    const origin = {
      kind: "manifest",
      plugin: "ValidatingAdmissionWebhook",
      file: "s.yaml",
    } as const;
    const withStatic = exemptionMatrix(
      compileSnapshot({
        validatingWebhookConfigurations: [
          { metadata: { name: "s.static.k8s.io" }, webhooks: [hook("s.x.io")] },
          { metadata: { name: "c" }, webhooks: [hook("a.x.io")] },
        ],
        manifestOrigins: { "ValidatingWebhookConfiguration/s.static.k8s.io": origin },
        namespaces: { app: NS("app") },
      }),
    );
    const u = unpackPreview(matrixPreview(withStatic, DEFAULT_PARAMS, ""));
    expect(u.hooks.map((h) => [h.hook.name, h.hook.origin])).toEqual([
      ["s.x.io", origin],
      ["a.x.io", undefined],
    ]);
  });

  it("applies the filters", () => {
    const p = matrixPreview(m, { ...DEFAULT_PARAMS, failurePolicy: "Ignore", all: true }, "x");
    expect(p.hooks.map((h) => h[3])).toEqual(["b.x.io"]);
    expect(p.params).toBe("x");
  });

  it("refuses a preview whose columns or cells do not fit", () => {
    const p = matrixPreview(m, DEFAULT_PARAMS, "");
    expect(() => unpackPreview({ ...p, hooks: [[9, 0, 0, "h"]] })).toThrow(/bad column h/);
    expect(() => unpackPreview({ ...p, cells: p.cells.slice(1) })).toThrow(/no cells/);
    expect(() => unpackPreview({ ...p, cells: p.cells.map(() => "e") })).toThrow(/not 3/);
  });
});

describe("visibleColumns", () => {
  const m = exemptionMatrix(
    compileSnapshot({
      validatingWebhookConfigurations: [
        { metadata: { name: "v" }, webhooks: [hook("a.x.io"), hook("data.x.io")] },
      ],
      mutatingWebhookConfigurations: [{ metadata: { name: "m" }, webhooks: [hook("a.x.io")] }],
      namespaces: { app: NS("app") },
    }),
  );
  const shown = (p: Partial<typeof DEFAULT_PARAMS>) =>
    visibleColumns(m, { ...DEFAULT_PARAMS, all: true, ...p }).map((i) => {
      const h = m.hooks[i]?.hook;
      return `${h?.source}/${h?.configuration}/${h?.name}`;
    });

  it("filters by a substring of the hook or configuration name as typed", () => {
    expect(shown({ hook: "a.x.io" })).toEqual([
      "MutatingWebhookConfiguration/m/a.x.io",
      "ValidatingWebhookConfiguration/v/a.x.io",
      "ValidatingWebhookConfiguration/v/data.x.io",
    ]);
  });

  it("narrows to one hook's column, or to every hook of exactly a name, never to names that hold it", () => {
    expect(shown({ only: "ValidatingWebhookConfiguration/v/a.x.io" })).toEqual([
      "ValidatingWebhookConfiguration/v/a.x.io",
    ]);
    expect(shown({ only: "a.x.io" })).toEqual([
      "MutatingWebhookConfiguration/m/a.x.io",
      "ValidatingWebhookConfiguration/v/a.x.io",
    ]);
    expect(shown({ only: "ValidatingWebhookConfiguration/m/a.x.io" })).toEqual([]);
  });
});
