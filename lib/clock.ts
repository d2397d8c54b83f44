/**
 * Times as every page shows them: the browser's time zone, a 24-hour clock (pure). One module, so
 * a table, a chart's axis and a status line never disagree on the format. The hour cycle is named
 * (h23): `hour12: false` alone gives some locales' h24, where a minute past midnight is 24:01.
 */

/** A time of day to the second, e.g. 19:46:25. */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hourCycle: "h23" });
}

/** A time of day to the minute, e.g. 19:46 (a chart's axis). */
export function clockMinute(ms: number): string {
  return new Date(ms).toLocaleTimeString([], {
    hourCycle: "h23",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/** A date and time to the second, e.g. 11/27/2026, 19:46:25 (a time range's start). */
export function dateTime(ms: number): string {
  return new Date(ms).toLocaleString([], { hourCycle: "h23" });
}

/**
 * Where a server-side clock reads the time: the wall clock in production, one a test moves by
 * hand in unit tests (a scraper's freshness, a follower's pacing), so they wait on state.
 */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
