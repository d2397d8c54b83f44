"use client";

import { useEffect, useState, type RefObject } from "react";

/** The scrolled viewport of a scroll element. */
export interface Viewport {
  top: number;
  left: number;
  width: number;
  height: number;
}

/**
 * Tracks the scroll position and size of a scroll element (one read per animation frame), so a
 * windowed list or grid renders only the rows and columns in view. Before it is measured
 * (server render, hydration), assumes `initial`.
 */
export function useScrollViewport(
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
