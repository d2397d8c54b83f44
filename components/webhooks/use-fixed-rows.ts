"use client";

import type { RefObject } from "react";
import { useScrollViewport } from "@/components/ui/use-scroll-viewport";

/** A window of rows to render: indexes [start, end) and the total height they scroll within. */
export interface RowWindow {
  start: number;
  end: number;
  totalHeight: number;
}

/**
 * Windowing for rows of one fixed height: only the rows in view (plus `overscan` either side)
 * are rendered. The list's rows never change height, so this needs no measuring, which keeps a
 * general-purpose virtualizer (about 10 KB gzipped) out of the list page's first-load JavaScript.
 * Before the scroll element is measured (server render, hydration) it assumes `initialHeight`.
 */
export function useFixedRows({
  count,
  rowHeight,
  overscan,
  scrollRef,
  initialHeight,
}: {
  count: number;
  rowHeight: number;
  overscan: number;
  scrollRef: RefObject<HTMLElement | null>;
  initialHeight: number;
}): RowWindow {
  const view = useScrollViewport(scrollRef, { top: 0, left: 0, width: 0, height: initialHeight });
  return rowWindow({ count, rowHeight, overscan, top: view.top, height: view.height });
}

/** The rows in view from `top` over `height` pixels, plus `overscan` either side (pure). */
export function rowWindow({
  count,
  rowHeight,
  overscan,
  top,
  height,
}: {
  count: number;
  rowHeight: number;
  overscan: number;
  top: number;
  height: number;
}): RowWindow {
  const first = Math.floor(top / rowHeight);
  const last = Math.ceil((top + height) / rowHeight);
  return {
    start: Math.max(0, Math.min(count, first - overscan)),
    end: Math.max(0, Math.min(count, last + overscan)),
    totalHeight: count * rowHeight,
  };
}
