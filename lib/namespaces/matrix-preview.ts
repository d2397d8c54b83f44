/**
 * The matrix's first screen, computed where the data already is (the server, while the page
 * streams), so the grid paints from the HTML before the browser has loaded the model and
 * computed the whole matrix. Pure.
 */
import type { ExemptionMatrix, MatrixHook } from "@/lib/admission/exemptions";
import { cellReader, matrixRows, type MatrixRow } from "@/lib/admission/exemption-views";
import type { MatrixParams } from "@/lib/namespaces/matrix-params";

/** The hook columns the parameters show, as indexes into the matrix's hooks. */
export function visibleColumns(m: ExemptionMatrix, params: MatrixParams): number[] {
  const q = params.hook.toLowerCase();
  const out: number[] = [];
  m.hooks.forEach((h, i) => {
    if (!params.all && !h.applies) return;
    if (params.failurePolicy && h.failurePolicy !== params.failurePolicy) return;
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

/** The first rows × columns of the matrix as the page shows them. */
export interface MatrixPreview {
  readonly groupBy: string;
  /** The shown hooks (the first columns only). */
  readonly hooks: readonly MatrixHook[];
  readonly rows: readonly MatrixRow[];
  /** Per row, one digit per hook (EXEMPT, INTERCEPTED, NOT_MATCHED); "" for group rows. */
  readonly cells: readonly string[];
  /** What the whole matrix holds. */
  readonly totalRows: number;
  readonly totalColumns: number;
  /** The parameters it was computed for (query string). */
  readonly params: string;
}

/** Cuts the first `maxRows` × `maxCols` out of the matrix for the parameters. */
export function matrixPreview(
  m: ExemptionMatrix,
  params: MatrixParams,
  query: string,
  maxRows = 60,
  maxCols = 80,
): MatrixPreview {
  const rows = visibleRows(m, params);
  const cols = visibleColumns(m, params);
  const read = cellReader(m);
  const shownRows = rows.slice(0, maxRows);
  const shownCols = cols.slice(0, maxCols);
  return {
    groupBy: m.groupBy,
    hooks: shownCols.map((h) => m.hooks[h] as MatrixHook),
    rows: shownRows,
    cells: shownRows.map((r) =>
      r.kind === "group" ? "" : shownCols.map((h) => read(r.name, r.g, h)).join(""),
    ),
    totalRows: rows.length,
    totalColumns: cols.length,
    params: query,
  };
}
