"use client";

import { useSyncExternalStore } from "react";

const QUERY = "(prefers-color-scheme: dark)";

function subscribe(onChange: () => void): () => void {
  const mq = window.matchMedia(QUERY);
  mq.addEventListener("change", onChange);
  return () => mq.removeEventListener("change", onChange);
}

/**
 * Monaco's theme for the page's colour scheme (the page follows the system's light/dark);
 * portcullis-dark is defined in monaco-setup.ts.
 */
export function useMonacoTheme(): "vs" | "portcullis-dark" {
  return useSyncExternalStore(
    subscribe,
    () => (window.matchMedia(QUERY).matches ? "portcullis-dark" : "vs"),
    () => "vs",
  );
}
