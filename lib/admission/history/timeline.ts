/**
 * A timeline's entries: each change with its field diff against the version before it, grouped
 * by day for the page, and the markers a hook's charts draw.
 */
import type { ChangeRecord, ChangeSource } from "./changes";
import { diffObjects, type FieldChange } from "./diff";
import type { HistoryKind } from "./kinds";

export interface TimelineEntry {
  change: ChangeRecord;
  diff: FieldChange[];
  /** Whether the entry's after-state is known (a Request-level patch with no watch record is not). */
  known: boolean;
  /**
   * For a deletion: the change holding the object's last known state before it (what a restore
   * re-creates), when one is stored.
   */
  lastKnown?: number;
}

/**
 * The entries of `changes` (newest first, as read) with their diffs: each against the next older
 * change that has an after-state (a deletion's after-state is nothing), and the oldest against
 * `older`, the change just before the page when there is one.
 */
export function timelineEntries(
  changes: readonly ChangeRecord[],
  older?: ChangeRecord,
): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i] as ChangeRecord;
    let prev: ChangeRecord | undefined = changes[i + 1] ?? older;
    for (let j = i + 1; prev && prev.object === undefined && prev.operation !== "delete";) {
      j++;
      prev = changes[j] ?? (j === changes.length ? older : undefined);
    }
    const before = prev?.operation === "delete" ? undefined : prev?.object;
    const deleted = c.operation === "delete" || c.operation === "deletecollection";
    const known = deleted || c.object !== undefined;
    out.push({
      change: c,
      diff: known ? diffObjects(before, deleted ? undefined : c.object) : [],
      known,
      ...(deleted && before && prev ? { lastKnown: prev.id } : {}),
    });
  }
  return out;
}

export interface DayGroup<T> {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  items: T[];
}

/** Items grouped by the UTC day of their time, in the order given. */
export function groupByDay<T>(items: readonly T[], timeOf: (t: T) => number): DayGroup<T>[] {
  const out: DayGroup<T>[] = [];
  for (const item of items) {
    const day = new Date(timeOf(item)).toISOString().slice(0, 10);
    const last = out[out.length - 1];
    if (last?.day === day) last.items.push(item);
    else out.push({ day, items: [item] });
  }
  return out;
}

/** A mark on a chart at a change of the configuration a hook belongs to. */
export interface ChangeMarker {
  id: number;
  time: number;
  kind: HistoryKind;
  name: string;
  operation: string;
  /** Who, or "actor unknown (from watch)". */
  who: string;
  source: ChangeSource;
}

export const UNKNOWN_ACTOR = "actor unknown (from watch)";

export function actorText(c: Pick<ChangeRecord, "actor">): string {
  if (!c.actor) return UNKNOWN_ACTOR;
  return c.actor.impersonator
    ? `${c.actor.user} (impersonated by ${c.actor.impersonator})`
    : c.actor.user;
}

export function markerOf(c: ChangeRecord): ChangeMarker {
  return {
    id: c.id,
    time: c.time,
    kind: c.kind,
    name: c.name,
    operation: c.operation,
    who: actorText(c),
    source: c.source,
  };
}

/** The markers within [from, to] (chart's range), oldest first. */
export function markersIn(
  changes: readonly ChangeRecord[],
  from: number,
  to: number,
): ChangeMarker[] {
  return changes
    .filter((c) => c.time >= from && c.time <= to)
    .sort((a, b) => a.time - b.time)
    .map(markerOf);
}
