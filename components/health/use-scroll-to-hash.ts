"use client";

import { useEffect } from "react";

/**
 * Scrolls to the element the URL's fragment names once the page's rows exist: the rows arrive
 * after the first render, so the browser's own jump to the fragment finds nothing.
 */
export function useScrollToHash(ready: boolean): void {
  useEffect(() => {
    if (!ready || window.location.hash.length < 2) return;
    let id: string;
    try {
      id = decodeURIComponent(window.location.hash.slice(1));
    } catch {
      return;
    }
    const el = document.getElementById(id);
    if (!el) return;
    el.scrollIntoView({ block: "center" });
    el.setAttribute("aria-current", "location");
  }, [ready]);
}
