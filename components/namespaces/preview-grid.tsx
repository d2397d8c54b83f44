"use client";

import { useMemo } from "react";
import { previewCell, type MatrixPreview } from "@/lib/namespaces/matrix-preview";
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
  const { cols, read } = useMemo(
    () => ({
      cols: preview.hooks.map((_, i) => i),
      read: (_name: string, g: number, h: number) => previewCell(preview, g, h),
    }),
    [preview],
  );
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
