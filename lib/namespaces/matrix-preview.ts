/**
 * The matrix's first screen, computed where the data already is (the server, while the page
 * renders), so the grid paints from the HTML before the browser has the cluster's admission state
 * or has computed the whole matrix. It travels in the page's payload packed: configuration names
 * once, each column as indexes and flags, each row's cells run-length encoded. Pure.
 */
import {
  EXEMPT,
  INTERCEPTED,
  NOT_MATCHED,
  type ExemptionMatrix,
  type MatrixHook,
} from "@/lib/admission/exemptions/exemptions";
import { cellReader, matrixRows, type MatrixRow } from "@/lib/admission/exemptions/exemption-views";
import type { HookIdentity, HookSourceKind } from "@/lib/admission/model/hook-identity";
import type { ManifestOrigin } from "@/lib/admission/model/manifests";
import { readOnly, type MatrixParams } from "@/lib/namespaces/matrix-params";

/** The hook columns the parameters show, as indexes into the matrix's hooks. */
export function visibleColumns(m: ExemptionMatrix, params: MatrixParams): number[] {
  const q = params.hook.toLowerCase();
  const only = readOnly(params.only);
  const out: number[] = [];
  m.hooks.forEach((h, i) => {
    if (!params.all && !h.applies) return;
    if (params.failurePolicy && h.failurePolicy !== params.failurePolicy) return;
    if (
      only &&
      (h.hook.name !== only.name ||
        (only.source !== undefined &&
          (h.hook.source !== only.source || h.hook.configuration !== only.configuration)))
    )
      return;
    if (
      q &&
      !h.hook.name.toLowerCase().includes(q) &&
      !h.hook.configuration.toLowerCase().includes(q)
    )
      return;
    out.push(i);
  });
  return out;
}

/** The rows the parameters show. */
export function visibleRows(m: ExemptionMatrix, params: MatrixParams): MatrixRow[] {
  const q = params.namespace;
  return matrixRows(m, q ? (n) => n.includes(q) : undefined);
}

/** What the grid draws for a column: a full matrix's hook or a preview's. */
export interface GridHook {
  readonly hook: Pick<HookIdentity, "source" | "configuration" | "name" | "origin">;
  readonly failurePolicy: MatrixHook["failurePolicy"];
  readonly conditional: boolean;
}

/**
 * The first rows × columns as they travel in the page's payload:
 * - `configurations`: the distinct configuration (or policy) names of the shown columns;
 * - `hooks`: per column `[source, configuration, flags, name]`, source an index into
 *   HOOK_SOURCE_ORDER, configuration an index into `configurations`, flags 1 = failurePolicy
 *   Fail, 2 = conditional (objectSelector, matchConditions or resourceNames may narrow);
 * - `rows`: a namespace name, or a group heading `[value or null when absent, count]`;
 * - `cells`: per namespace row, in order, its cells run-length encoded (see encodeRuns);
 * - `origins`: by column index, where a static hook (loaded from a manifest file) came from.
 */
export interface PackedPreview {
  readonly groupBy: string;
  /** The parameters it was computed for (query string). */
  readonly params: string;
  /** What the whole matrix holds for the parameters. */
  readonly totalRows: number;
  readonly totalColumns: number;
  readonly configurations: readonly string[];
  readonly hooks: ReadonlyArray<readonly [number, number, number, string]>;
  readonly rows: ReadonlyArray<string | readonly [string | null, number]>;
  readonly cells: readonly string[];
  readonly origins?: Readonly<Record<number, ManifestOrigin>>;
}

/** The first screen unpacked for the grid: namespace rows' `g` indexes `cells`. */
export interface MatrixPreview {
  readonly groupBy: string;
  readonly params: string;
  readonly totalRows: number;
  readonly totalColumns: number;
  readonly hooks: readonly GridHook[];
  readonly rows: readonly MatrixRow[];
  /** Per namespace row (by its `g`), one cell value per shown column. */
  readonly cells: readonly Uint8Array[];
}

/** Sources by index in PackedPreview's columns (append only: the index is the wire format). */
const HOOK_SOURCE_ORDER: readonly HookSourceKind[] = [
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "ValidatingAdmissionPolicy",
  "InitializerConfiguration",
];

const FAIL = 1;
const CONDITIONAL = 2;
/** Cell values as run letters, and back. */
const LETTER: Readonly<Record<number, string>> = {
  [EXEMPT]: "e",
  [INTERCEPTED]: "i",
  [NOT_MATCHED]: "x",
};
const VALUE: Readonly<Record<string, number>> = { e: EXEMPT, i: INTERCEPTED, x: NOT_MATCHED };

/**
 * Run-length encodes cell values (EXEMPT, INTERCEPTED or NOT_MATCHED): each run is the value's
 * letter (`e`, `i`, `x`) followed by its length in decimal when longer than one, e.g.
 * [0, 0, 0, 1, 2, 2] → "e3ix2". Hooks of one configuration often share a selector, so rows of a
 * real cluster have long runs; at worst the text is one letter per cell.
 */
export function encodeRuns(cells: ArrayLike<number>): string {
  let out = "";
  for (let i = 0; i < cells.length;) {
    const v = cells[i] as number;
    const letter = LETTER[v];
    if (letter === undefined) throw new Error(`cell value ${v} cannot be encoded`);
    let j = i + 1;
    while (j < cells.length && cells[j] === v) j++;
    out += j - i > 1 ? `${letter}${j - i}` : letter;
    i = j;
  }
  return out;
}

/** Decodes encodeRuns' text; throws on anything else, or when it does not hold `length` cells. */
export function decodeRuns(text: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let n = 0;
  let i = 0;
  while (i < text.length) {
    const v = VALUE[text[i] as string];
    if (v === undefined) throw new Error(`bad run at ${i} in "${text.slice(0, 40)}"`);
    let j = i + 1;
    while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
    const count = j > i + 1 ? Number(text.slice(i + 1, j)) : 1;
    if (count < 2 && j > i + 1) throw new Error(`bad run length at ${i} in "${text.slice(0, 40)}"`);
    if (n + count > length) throw new Error(`runs hold more than ${length} cells`);
    out.fill(v, n, n + count);
    n += count;
    i = j;
  }
  if (n !== length) throw new Error(`runs hold ${n} cells, not ${length}`);
  return out;
}

/** Cuts the first `maxRows` × `maxCols` out of the matrix for the parameters, packed. */
export function matrixPreview(
  m: ExemptionMatrix,
  params: MatrixParams,
  query: string,
  maxRows = 60,
  maxCols = 80,
): PackedPreview {
  const rows = visibleRows(m, params);
  const cols = visibleColumns(m, params);
  const read = cellReader(m);
  const shownRows = rows.slice(0, maxRows);
  const shownCols = cols.slice(0, maxCols);
  const configurations: string[] = [];
  const configIndex = new Map<string, number>();
  const origins: Record<number, ManifestOrigin> = {};
  const hooks = shownCols.map((h, i) => {
    const hook = m.hooks[h] as MatrixHook;
    if (hook.hook.origin) origins[i] = hook.hook.origin;
    let c = configIndex.get(hook.hook.configuration);
    if (c === undefined) {
      c = configurations.push(hook.hook.configuration) - 1;
      configIndex.set(hook.hook.configuration, c);
    }
    const flags = (hook.failurePolicy === "Fail" ? FAIL : 0) | (hook.conditional ? CONDITIONAL : 0);
    return [HOOK_SOURCE_ORDER.indexOf(hook.hook.source), c, flags, hook.hook.name] as const;
  });
  const row = new Uint8Array(shownCols.length);
  const cells: string[] = [];
  for (const r of shownRows) {
    if (r.kind === "group") continue;
    shownCols.forEach((h, i) => (row[i] = read(r.name, r.g, h)));
    cells.push(encodeRuns(row));
  }
  return {
    groupBy: m.groupBy,
    params: query,
    totalRows: rows.length,
    totalColumns: cols.length,
    configurations,
    hooks,
    rows: shownRows.map((r) => (r.kind === "group" ? [r.value ?? null, r.count] : r.name)),
    cells,
    ...(Object.keys(origins).length > 0 ? { origins } : {}),
  };
}

/** Unpacks the first screen for the grid; throws on a malformed one. */
export function unpackPreview(p: PackedPreview): MatrixPreview {
  const hooks = p.hooks.map(([s, c, flags, name], i): GridHook => {
    const source = HOOK_SOURCE_ORDER[s];
    const configuration = p.configurations[c];
    if (source === undefined || configuration === undefined)
      throw new Error(`bad column ${name}: source ${s}, configuration ${c}`);
    const origin = p.origins?.[i];
    return {
      hook: { source, configuration, name, ...(origin ? { origin } : {}) },
      failurePolicy: flags & FAIL ? "Fail" : "Ignore",
      conditional: (flags & CONDITIONAL) !== 0,
    };
  });
  const rows: MatrixRow[] = [];
  const cells: Uint8Array[] = [];
  let value: string | undefined;
  for (const r of p.rows) {
    if (typeof r !== "string") {
      value = r[0] ?? undefined;
      rows.push({ kind: "group", value, count: r[1] });
      continue;
    }
    const text = p.cells[cells.length];
    if (text === undefined) throw new Error(`no cells for namespace ${r}`);
    rows.push({ kind: "namespace", name: r, g: cells.length, value });
    cells.push(decodeRuns(text, hooks.length));
  }
  return {
    groupBy: p.groupBy,
    params: p.params,
    totalRows: p.totalRows,
    totalColumns: p.totalColumns,
    hooks,
    rows,
    cells,
  };
}

/** Reads a cell of an unpacked preview the way the grid reads the whole matrix. */
export function previewCell(p: MatrixPreview, g: number, h: number): number {
  return p.cells[g]?.[h] ?? NOT_MATCHED;
}
