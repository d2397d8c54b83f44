"use client";

import { useEffect } from "react";

/**
 * While `dirty`, leaving the page asks first: closing or reloading the tab (the browser's own
 * prompt) and following a link inside the dashboard (a confirm; declined, the click does
 * nothing). A link to the page itself (a hash), a link opened elsewhere (a modifier, another
 * target, a download) and programmatic navigation after a save are not asked about.
 */
export function useUnsavedGuard(dirty: boolean, question: string): void {
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = "";
    };
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0) return;
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!(a instanceof HTMLAnchorElement)) return;
      if ((a.target && a.target !== "_self") || a.hasAttribute("download")) return;
      const to = new URL(a.href, window.location.href);
      // Another site: the page unloads, and beforeunload asks.
      if (to.origin !== window.location.origin) return;
      if (to.pathname === window.location.pathname && to.search === window.location.search) return;
      if (window.confirm(question)) return;
      // Capture phase on the document: the link's own handler (client-side navigation) never runs.
      e.preventDefault();
      e.stopPropagation();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onClick, true);
    };
  }, [dirty, question]);
}
