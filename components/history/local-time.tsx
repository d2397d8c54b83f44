"use client";

import { useSyncExternalStore } from "react";
import { clockTime, dateTime } from "@/lib/clock";

const subscribeToNothing = () => () => {};

const UTC = { hourCycle: "h23", timeZone: "UTC" } as const;

/**
 * `local(ms)` (the browser's time zone and locale), rendered on the server and while hydrating
 * as `utc(ms)`, the same layout in UTC: a server-rendered first screen hydrates without a
 * mismatch, and the browser's own zone replaces it right after (nothing moves where they agree).
 */
function useLocalText(ms: number, local: (ms: number) => string, utc: (ms: number) => string) {
  return useSyncExternalStore(
    subscribeToNothing,
    () => local(ms),
    () => utc(ms),
  );
}

/** clockTime (e.g. 19:46:25), safe in a server-rendered first screen. */
export function ClockTime({ ms }: { ms: number }) {
  return <>{useLocalText(ms, clockTime, (t) => new Date(t).toLocaleTimeString("en-US", UTC))}</>;
}

/** dateTime (e.g. 11/27/2026, 19:46:25), safe in a server-rendered first screen. */
export function DateTime({ ms }: { ms: number }) {
  return <>{useLocalText(ms, dateTime, (t) => new Date(t).toLocaleString("en-US", UTC))}</>;
}
