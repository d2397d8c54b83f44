"use client";

import { useMemo } from "react";
import type { MatrixPreview } from "@/lib/namespaces/matrix-preview";
import { MatrixGrid, type CellRef } from "./matrix-grid";

/** The server-computed first screen of the matrix, in the same grid, until the model loads. */
export function PreviewGrid({
  preview,
  active,
  onActive,
}: {
  preview: MatrixPreview;
  /** Shared with the whole matrix that replaces this one, so the cell the user is on stays. */
  active: CellRef | undefined;
  onActive: (cell: CellRef) => void;
}) {
  const { cols, read } = useMemo(() => {
    const rowOf = new Map<string, number>();
    preview.rows.forEach((r, i) => {
      if (r.kind === "namespace") rowOf.set(r.name, i);
    });
    return {
      cols: preview.hooks.map((_, i) => i),
      read: (name: string, _g: number, h: number) =>
        Number(preview.cells[rowOf.get(name) ?? -1]?.[h] ?? 2),
    };
  }, [preview]);
  return (
    <>
      <MatrixGrid
        matrix={preview}
        rows={preview.rows}
        cols={cols}
        read={read}
        active={active}
        onActive={onActive}
        describedBy="cell-detail"
      />
      <div id="cell-detail" className="cell-detail panel" aria-live="polite">
        <span className="muted">
          Showing the first {preview.rows.length} of {preview.totalRows} rows and{" "}
          {preview.hooks.length} of {preview.totalColumns} hooks; loading the whole matrix…
        </span>
      </div>
    </>
  );
}
