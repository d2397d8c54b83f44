import { describe, expect, it } from "vitest";
import { applyListState, configRows, parseListState } from "./list-filter";
import {
  FIRST_SCREEN_ROWS,
  listPreview,
  packRows,
  previewable,
  unpackListPreview,
  type PackedListPreview,
} from "./list-preview";
import { hookRows, type ConfigLike } from "./summary";

/** Configurations of every shape the rows have: defaults, explicit values, no hooks, mutating. */
function configs(n: number): { validating: ConfigLike[]; mutating: ConfigLike[] } {
  const validating: ConfigLike[] = [];
  for (let c = 0; c < n; c++) {
    const name = `cfg-${String(c).padStart(4, "0")}`;
    validating.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name },
      webhooks:
        c % 7 === 3
          ? []
          : Array.from({ length: 10 }, (_, h) => ({
              name: `h${h}.${name}.example.com`,
              failurePolicy: h % 3 === 0 ? "Ignore" : undefined,
              timeoutSeconds: h % 2 ? 1 + h : undefined,
              sideEffects: "None",
              clientConfig: { url: `https://127.0.0.1:9/${name}/${h}` },
              rules: [
                {
                  operations: ["CREATE"],
                  apiGroups: [h % 2 ? "apps" : ""],
                  apiVersions: ["v1"],
                  resources: [h % 2 ? "deployments" : "configmaps"],
                },
              ],
              namespaceSelector: { matchLabels: { team: `t${c % 4}` } },
            })),
    });
  }
  const mutating: ConfigLike[] = [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: "inject" },
      webhooks: [
        { name: "a.inject", reinvocationPolicy: "IfNeeded", matchPolicy: "Exact" },
        { name: "b.inject", clientConfig: { service: { namespace: "x", name: "svc" } } },
      ],
    },
  ];
  return { validating, mutating };
}

const KINDS = [
  ["MutatingWebhookConfiguration", 1],
  ["ValidatingWebhookConfiguration", 100],
] as const;

function allRows() {
  const { validating, mutating } = configs(100);
  return [
    ...hookRows(mutating, "mutatingwebhookconfigurations"),
    ...hookRows(validating, "validatingwebhookconfigurations"),
  ];
}

describe("the webhook list's first screen", () => {
  it("is the first rows the whole list shows for the state, exactly as the browser makes them", () => {
    const rows = allRows();
    for (const query of ["", "sort=timeout&dir=desc", "q=cfg-002&fp=Ignore", "view=configs"]) {
      const state = parseListState(new URLSearchParams(query));
      const packed = listPreview(rows, state, KINDS, FIRST_SCREEN_ROWS);
      // Through the page's payload: JSON.
      const preview = unpackListPreview(JSON.parse(JSON.stringify(packed)) as PackedListPreview);
      const view = state.view === "configs" ? configRows(rows) : rows;
      const whole = applyListState(view, state, {});
      expect(preview.params).toBe(query);
      expect(preview.shown).toBe(whole.length);
      expect(preview.total).toBe(view.length);
      expect(preview.kinds).toEqual(KINDS);
      expect(preview.rows).toEqual(whole.slice(0, FIRST_SCREEN_ROWS));
      expect(preview.rows.length).toBe(Math.min(FIRST_SCREEN_ROWS, whole.length));
    }
  });

  it("carries each text once: a screen of rows is a few kilobytes however large the list", () => {
    const rows = allRows();
    const state = parseListState(new URLSearchParams(""));
    const packed = listPreview(rows, state, KINDS, FIRST_SCREEN_ROWS);
    expect(new Set(packed.strings).size).toBe(packed.strings.length);
    const bytes = JSON.stringify(packed).length;
    const plain = JSON.stringify(rows.slice(0, FIRST_SCREEN_ROWS)).length;
    expect(bytes).toBeLessThan(plain / 2);
    expect(bytes).toBeLessThan(8_000);
  });

  it("keeps defaulted flags and the reinvocation policy apart per row", () => {
    const { mutating } = configs(0);
    const rows = hookRows(mutating, "mutatingwebhookconfigurations");
    const back = unpackListPreview({
      params: "",
      shown: rows.length,
      total: rows.length,
      kinds: [],
      ...packRows(rows),
    }).rows;
    expect(back).toEqual(rows);
    expect(back[0]?.reinvocationPolicy).toEqual({ value: "IfNeeded", defaulted: false });
    expect(back[1]?.reinvocationPolicy).toEqual({ value: "Never", defaulted: true });
    expect(back[0]?.matchPolicy.defaulted).toBe(false);
    expect(back[1]?.matchPolicy.defaulted).toBe(true);
  });

  it("refuses a malformed screen instead of drawing wrong rows", () => {
    const { strings, rows } = packRows(allRows().slice(0, 3));
    const base = { params: "", shown: 3, total: 3, kinds: [] };
    expect(() => unpackListPreview({ ...base, strings: strings.slice(0, 2), rows })).toThrow(
      /no text/,
    );
    const short = rows.map((r) => r.slice(0, 17)) as unknown as PackedListPreview["rows"];
    expect(() => unpackListPreview({ ...base, strings, rows: short })).toThrow(/17 values/);
  });

  it("is not cut on the server for states that need the linter's findings", () => {
    expect(previewable(parseListState(new URLSearchParams("")))).toBe(true);
    expect(previewable(parseListState(new URLSearchParams("sort=findings")))).toBe(false);
    expect(previewable(parseListState(new URLSearchParams("findings=any")))).toBe(false);
  });
});
