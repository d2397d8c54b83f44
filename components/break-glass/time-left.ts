"use client";

import { useEffect, useState } from "react";

/** Time left as the banner shows it: `1 h 05 min`, `4 min 09 s`, `9 s`. */
export function formatTimeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} min`;
  if (m > 0) return `${m} min ${String(sec).padStart(2, "0")} s`;
  return `${sec} s`;
}

/**
 * The server's clock as of now, ticking every second: the server's `now` at its answer, moved on
 * by the browser's clock since (so a browser clock set wrong does not change the time left).
 */
export function useServerNow(serverNow: number | undefined, answeredAt: number): number {
  const [local, setLocal] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setLocal(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (serverNow === undefined) return local;
  return serverNow + Math.max(0, local - answeredAt);
}
