"use client";

import Link from "next/link";
import { useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { EXEMPT, INTERCEPTED } from "@/lib/admission/exemptions/exemptions";
import type { GridHook } from "@/lib/namespaces/matrix-preview";
import {
  columnGroups,
  type CellReader,
  type MatrixRow,
} from "@/lib/admission/exemptions/exemption-views";
import { hookHref, namespaceHref } from "@/lib/namespaces/links";
import { useScrollViewport } from "@/components/ui/use-scroll-viewport";

const ROW_H = 24;
const COL_W = 26;
const HEAD_W = 230;
const BAND_H = 22;
/**
 * The column header's height: room for the longest hook name, at a generous 6.8 px a character
 * (names measured 6.2–6.5 in 11 px type; a header a little too tall beats a name cut short).
 */
const MIN_HEAD_H = 150;
const MAX_HEAD_H = 320;
const HEAD_CHAR_PX = 6.8;

function headHeight(names: Iterable<string>): number {
  let longest = 0;
  for (const n of names) if (n.length > longest) longest = n.length;
  // The band above, the header's padding (8 px) and a little slack.
  const fit = BAND_H + 12 + Math.ceil(longest * HEAD_CHAR_PX);
  return Math.min(MAX_HEAD_H, Math.max(MIN_HEAD_H, fit));
}
const OVERSCAN = 4;
/** What the grid assumes it shows until it is measured: a laptop screen's worth. */
const INITIAL_VIEW = { top: 0, left: 0, width: 1100, height: 600 };

/** Indexes [start, end) of fixed-size items of `size` px, starting at `offset`, in view. */
function inView(
  count: number,
  size: number,
  offset: number,
  from: number,
  length: number,
  overscan: number,
): { start: number; end: number } {
  const start = Math.max(0, Math.floor((from - offset) / size) - overscan);
  const end = Math.min(count, Math.ceil((from + length - offset) / size) + overscan);
  return { start, end: Math.max(start, end) };
}

/** A cell the user is looking at (focused or hovered). */
export interface CellRef {
  row: number;
  col: number;
}

const GLYPH = ["○", "●", "·"];
const WORD = ["exempt", "intercepted", "rules do not match"];

/**
 * The exemption matrix as an ARIA grid: namespaces (grouped) × hooks (grouped by configuration),
 * windowed in both directions, one tab stop with arrow-key, Home/End and Page navigation.
 */
export function MatrixGrid({
  matrix,
  rows,
  cols,
  read,
  active,
  onActive,
  describedBy,
  initialFocus = false,
}: {
  /** The hooks (columns) and the grouping label; a full matrix or a server preview. */
  matrix: { readonly hooks: readonly GridHook[]; readonly groupBy: string };
  rows: readonly MatrixRow[];
  /** Hook indexes of the matrix to show, in order. */
  cols: readonly number[];
  read: CellReader;
  active: CellRef | undefined;
  onActive: (cell: CellRef) => void;
  /** Id of the element that explains the active cell. */
  describedBy: string;
  /** Focus the active cell once rendered (a grid that replaces one the user was in). */
  initialFocus?: boolean;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const view = useScrollViewport(scrollRef, INITIAL_VIEW);
  // Over every column, not only those in view: the header keeps its height while scrolling.
  const headH = useMemo(
    () => headHeight(cols.map((h) => matrix.hooks[h]?.hook.name ?? "")),
    [cols, matrix.hooks],
  );
  const [focusWanted, setFocusWanted] = useState(initialFocus);
  // Before the viewport is measured (the server's HTML, hydration) nothing scrolls: no overscan,
  // so the first paint lays out only the cells in view.
  const overscan = view === INITIAL_VIEW ? 0 : OVERSCAN;
  const r = inView(rows.length, ROW_H, headH, view.top + headH, view.height - headH, overscan);
  const c = inView(cols.length, COL_W, HEAD_W, view.left + HEAD_W, view.width - HEAD_W, overscan);
  const firstNs = rows.findIndex((x) => x.kind === "namespace");
  const cur: CellRef | undefined =
    active && active.row < rows.length && active.col < cols.length
      ? active
      : firstNs >= 0 && cols.length > 0
        ? { row: firstNs, col: 0 }
        : undefined;

  // Moves keyboard focus to the active cell once it is rendered (after scrolling it into view).
  // In the commit itself, not after paint: when the whole matrix replaces the first screen's grid
  // under a keyboard user, a key pressed between the two would otherwise reach the page's body.
  const curRow = cur?.row;
  const curCol = cur?.col;
  useLayoutEffect(() => {
    if (!focusWanted || curRow === undefined) return;
    const el = scrollRef.current?.querySelector<HTMLElement>(`[data-cell="${curRow}:${curCol}"]`);
    if (el) {
      el.focus({ preventScroll: true });
      setFocusWanted(false);
    }
  }, [focusWanted, curRow, curCol, r.start, r.end, c.start, c.end]);

  const move = (row: number, col: number) => {
    const el = scrollRef.current;
    if (!el || rows.length === 0 || cols.length === 0) return;
    col = Math.max(0, Math.min(cols.length - 1, col));
    row = Math.max(0, Math.min(rows.length - 1, row));
    // Group headings are not cells: step over them in the direction of travel.
    const dir = cur && row < cur.row ? -1 : 1;
    while (rows[row]?.kind === "group") {
      const next = row + dir;
      if (next < 0 || next >= rows.length) return;
      row = next;
    }
    const y = headH + row * ROW_H;
    if (y - headH < el.scrollTop) el.scrollTop = y - headH;
    else if (y + ROW_H > el.scrollTop + el.clientHeight) el.scrollTop = y + ROW_H - el.clientHeight;
    const x = HEAD_W + col * COL_W;
    if (x - HEAD_W < el.scrollLeft) el.scrollLeft = x - HEAD_W;
    else if (x + COL_W > el.scrollLeft + el.clientWidth) el.scrollLeft = x + COL_W - el.clientWidth;
    onActive({ row, col });
    setFocusWanted(true);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!cur || !(e.target as HTMLElement).dataset.cell) return;
    const page = Math.max(1, Math.floor((view.height - headH) / ROW_H) - 1);
    const keys: Record<string, () => void> = {
      ArrowRight: () => move(cur.row, cur.col + 1),
      ArrowLeft: () => move(cur.row, cur.col - 1),
      ArrowDown: () => move(cur.row + 1, cur.col),
      ArrowUp: () => move(cur.row - 1, cur.col),
      PageDown: () => move(cur.row + page, cur.col),
      PageUp: () => move(cur.row - page, cur.col),
      Home: () => (e.ctrlKey ? move(0, 0) : move(cur.row, 0)),
      End: () =>
        e.ctrlKey ? move(rows.length - 1, cols.length - 1) : move(cur.row, cols.length - 1),
    };
    const f = keys[e.key];
    if (!f) return;
    e.preventDefault();
    f();
  };

  const width = HEAD_W + cols.length * COL_W;
  const height = headH + rows.length * ROW_H;
  const visibleCols = cols.slice(c.start, c.end);
  const bands = columnGroups(matrix.hooks, cols).filter(
    (b) => b.start < c.end && b.start + b.count > c.start,
  );

  return (
    <div
      ref={scrollRef}
      className="matrix-scroll"
      role="grid"
      tabIndex={-1}
      aria-label="Exemption matrix: namespaces by hooks"
      aria-rowcount={rows.length + 1}
      aria-colcount={cols.length + 1}
      onKeyDown={onKeyDown}
    >
      <div className="matrix-inner" style={{ width, height }}>
        <div className="matrix-head" role="row" aria-rowindex={1} style={{ width, height: headH }}>
          <div className="matrix-corner" role="columnheader" aria-colindex={1}>
            Namespace
          </div>
          <div aria-hidden="true">
            {bands.map((b) => (
              <div
                key={`${b.source}/${b.configuration}/${b.start}`}
                className="matrix-band"
                title={`${b.source} ${b.configuration}`}
                style={{ left: HEAD_W + b.start * COL_W, width: b.count * COL_W, height: BAND_H }}
              >
                {b.configuration}
              </div>
            ))}
          </div>
          {visibleCols.map((h, i) => {
            const hook = matrix.hooks[h];
            if (!hook) return null;
            const col = c.start + i;
            return (
              <div
                key={h}
                role="columnheader"
                aria-colindex={col + 2}
                className={`matrix-colhead${hook.failurePolicy === "Fail" ? " fail" : ""}`}
                style={{ left: HEAD_W + col * COL_W, top: BAND_H, height: headH - BAND_H }}
              >
                <Link
                  href={hookHref(hook.hook)}
                  prefetch={false}
                  title={`${hook.hook.configuration} / ${hook.hook.name} · failurePolicy ${hook.failurePolicy}${hook.conditional ? " · objectSelector/matchConditions may narrow" : ""}${hook.hook.origin ? ` · static, loaded by the apiserver from ${hook.hook.origin.file ?? "a manifest file"}` : ""}`}
                  data-static={hook.hook.origin ? "true" : undefined}
                >
                  {hook.hook.name}
                  {hook.hook.origin ? " (static)" : ""}
                </Link>
              </div>
            );
          })}
        </div>
        {rows.slice(r.start, r.end).map((row, i) => {
          const ri = r.start + i;
          const top = headH + ri * ROW_H;
          if (row.kind === "group")
            return (
              <div
                key={`g:${row.value ?? ""}`}
                role="row"
                aria-rowindex={ri + 2}
                className="matrix-group"
                style={{ top, width }}
              >
                <div
                  role="rowheader"
                  aria-colindex={1}
                  aria-colspan={cols.length + 1}
                  className="matrix-group-label"
                >
                  {row.value === undefined
                    ? `no ${matrix.groupBy} label`
                    : `${matrix.groupBy}=${row.value}`}{" "}
                  · {row.count} {row.count === 1 ? "namespace" : "namespaces"}
                </div>
              </div>
            );
          return (
            <div
              key={row.name}
              role="row"
              aria-rowindex={ri + 2}
              className="matrix-row"
              style={{ top, width }}
            >
              <div role="rowheader" aria-colindex={1} className="matrix-rowhead">
                {/* No prefetch: a screenful of rows would ask the server for dozens of pages. */}
                <Link href={namespaceHref(row.name)} prefetch={false}>
                  {row.name}
                </Link>
              </div>
              {visibleCols.map((h, j) => {
                const col = c.start + j;
                const hook = matrix.hooks[h];
                const v = read(row.name, row.g, h);
                const isActive = cur?.row === ri && cur.col === col;
                const cls =
                  v === INTERCEPTED
                    ? hook?.failurePolicy === "Fail"
                      ? "hit fail"
                      : "hit"
                    : v === EXEMPT
                      ? "exempt"
                      : "na";
                return (
                  <div
                    key={h}
                    role="gridcell"
                    aria-colindex={col + 2}
                    data-cell={`${ri}:${col}`}
                    tabIndex={isActive ? 0 : -1}
                    aria-label={`${row.name} × ${hook?.hook.name ?? ""}: ${WORD[v] ?? ""}`}
                    aria-describedby={isActive ? describedBy : undefined}
                    className={`matrix-cell ${cls}${isActive ? " active" : ""}`}
                    style={{ left: HEAD_W + col * COL_W }}
                    onFocus={() => {
                      // `active` is unset until a first move: the default cell must report too.
                      if (active?.row !== ri || active.col !== col) onActive({ row: ri, col });
                    }}
                    onMouseEnter={() => onActive({ row: ri, col })}
                  >
                    {GLYPH[v]}
                  </div>
                );
              })}
            </div>
          );
        })}
      </div>
    </div>
  );
}
