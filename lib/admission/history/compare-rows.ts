/**
 * The before/after comparisons of a hook's changes as one compact table: a row per change,
 * newest first, a column per count (before → after), the worse afters marked; the newest few
 * rows shown, the older behind a disclosure.
 */
import type { BeforeAfter, WindowStats } from "./effects";
import type { ChangeMarker } from "./timeline";

/** The counts compared, in column order, with their headers. */
export const COMPARED: ReadonlyArray<readonly [keyof WindowStats, string]> = [
  ["calls", "decisions"],
  ["denials", "denials"],
  ["errors", "errors"],
  ["failOpens", "fail-opens"],
  ["timeouts", "timeouts"],
  ["p99Ms", "p99 ms"],
];

/** How many changes' rows show before "earlier changes" is opened. */
export const COMPACT_ROWS = 3;

export interface CompareCell {
  key: keyof WindowStats;
  before?: number;
  after?: number;
  /** More after than before, for a count where more is worse (all but the decisions). */
  worse: boolean;
}

export interface CompareRow {
  changeId: number;
  /** When the change was made. */
  at: number;
  /** What the change was and who made it, when its marker is known. */
  operation?: string;
  who?: string;
  windowMs: number;
  cells: CompareCell[];
  /** Whether any count got worse after the change. */
  worse: boolean;
}

/** One row per comparison, newest change first, described by its marker. */
export function compareRows(
  comparisons: ReadonlyArray<BeforeAfter & { changeId: number }>,
  markers: readonly ChangeMarker[],
): CompareRow[] {
  const byId = new Map(markers.map((m) => [m.id, m]));
  return comparisons
    .map((c) => {
      const m = byId.get(c.changeId);
      const cells = COMPARED.map(([key]): CompareCell => {
        const before = c.before[key];
        const after = c.after[key];
        return {
          key,
          ...(before !== undefined ? { before } : {}),
          ...(after !== undefined ? { after } : {}),
          worse: key !== "calls" && (after ?? 0) > (before ?? 0),
        };
      });
      return {
        changeId: c.changeId,
        at: m?.time ?? c.at,
        ...(m ? { operation: m.operation, who: m.who } : {}),
        windowMs: c.windowMs,
        cells,
        worse: cells.some((x) => x.worse),
      };
    })
    .sort((a, b) => b.at - a.at || b.changeId - a.changeId);
}

/**
 * The rows shown: all when expanded, else the newest `limit`; `hidden` is how many wait behind
 * the disclosure and `hiddenWorse` how many of those got worse (the disclosure says so).
 */
export function shownRows(
  rows: readonly CompareRow[],
  expanded: boolean,
  limit = COMPACT_ROWS,
): { shown: CompareRow[]; hidden: number; hiddenWorse: number } {
  const shown = expanded ? [...rows] : rows.slice(0, limit);
  const rest = rows.slice(shown.length);
  return { shown, hidden: rest.length, hiddenWorse: rest.filter((r) => r.worse).length };
}

/** A cell's text: before → after, a dash for a value not measured. */
export function cellText(c: Pick<CompareCell, "before" | "after">): string {
  return `${c.before ?? "—"} → ${c.after ?? "—"}`;
}
