"use client";

import { useEffect, useState, type RefObject } from "react";

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
  const [view, setView] = useState({ top: 0, height: initialHeight });

  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    let frame = 0;
    const read = () => {
      frame = 0;
      setView((v) =>
        v.top === el.scrollTop && v.height === el.clientHeight
          ? v
          : { top: el.scrollTop, height: el.clientHeight },
      );
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(read);
    };
    read();
    el.addEventListener("scroll", schedule, { passive: true });
    const resize = typeof ResizeObserver === "function" ? new ResizeObserver(schedule) : undefined;
    resize?.observe(el);
    return () => {
      el.removeEventListener("scroll", schedule);
      resize?.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [scrollRef]);

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
