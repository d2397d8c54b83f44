"use client";

import { useEffect, useState, type RefObject } from "react";

/** The scrolled viewport of a two-dimensional grid. */
export interface Viewport {
  top: number;
  left: number;
  width: number;
  height: number;
}

/**
 * Tracks the scroll position and size of a grid's scroll element (one read per animation frame),
 * so only the rows and columns in view are rendered. Before it is measured, assumes `initial`.
 */
export function useGridViewport(
  scrollRef: RefObject<HTMLElement | null>,
  initial: Viewport,
): Viewport {
  const [view, setView] = useState(initial);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    let frame = 0;
    const read = () => {
      frame = 0;
      setView((v) =>
        v.top === el.scrollTop &&
        v.left === el.scrollLeft &&
        v.width === el.clientWidth &&
        v.height === el.clientHeight
          ? v
          : {
              top: el.scrollTop,
              left: el.scrollLeft,
              width: el.clientWidth,
              height: el.clientHeight,
            },
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
  return view;
}

/** Indexes [start, end) of fixed-size items of `size` px, starting at `offset`, in view. */
export function inView(
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
