/** Folds runs of identical decisions into one row with a count. Pure. */
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { addToHistogram, type DecisionHistogram } from "./histogram";

/**
 * A run of adjacent decisions that differ only in time, object name and audit event (a dry run and
 * a real request, or two impersonators acting as one user, are never one run: the row shows only
 * its newest decision's request).
 */
export interface DecisionGroup {
  /** The newest decision of the run (the list is newest first). */
  first: DecisionRecord;
  count: number;
  /** Time of the oldest decision of the run. */
  oldest: number;
}

/** What makes two decisions "the same" for grouping. */
function repeatKey(d: DecisionRecord): string {
  const r = d.request;
  return [
    d.kind,
    d.hook,
    d.configuration,
    d.outcome,
    d.code ?? "",
    d.message,
    r.operation,
    r.group,
    r.resource,
    r.subresource,
    r.namespace,
    r.user,
    r.impersonatedBy ?? "",
    r.dryRun ? "dry-run" : "",
  ].join("\u0000");
}

/** Groups adjacent repeats of a newest-first list; the order is kept. */
export function groupRepeats(items: readonly DecisionRecord[]): DecisionGroup[] {
  const out: DecisionGroup[] = [];
  let prevKey: string | undefined;
  for (const d of items) {
    const key = repeatKey(d);
    const last = out[out.length - 1];
    if (last && key === prevKey) {
      last.count++;
      last.oldest = d.time;
    } else {
      out.push({ first: d, count: 1, oldest: d.time });
      prevKey = key;
    }
  }
  return out;
}

/**
 * Newest-first merge of incoming decisions into a list, without duplicates, capped in length.
 * Incoming decisions may be older than the newest listed: dashboards sharing PostgreSQL commit
 * concurrently, so a batch with lower ids can be told after one with higher ids. Those are merged
 * into their place, not dropped.
 */
export function mergeNewest(
  list: readonly DecisionRecord[],
  incoming: readonly DecisionRecord[],
  cap: number,
): DecisionRecord[] {
  const fresh = notListed(list, incoming);
  if (fresh.length === 0) return list as DecisionRecord[];
  return [...fresh, ...list].sort((a, b) => b.id - a.id).slice(0, cap);
}

/** The decisions of `incoming` that `list` does not hold yet, each once. */
function notListed(
  list: readonly DecisionRecord[],
  incoming: readonly DecisionRecord[],
): DecisionRecord[] {
  const known = new Set(list.map((d) => d.id));
  const fresh: DecisionRecord[] = [];
  for (const d of incoming) {
    if (known.has(d.id)) continue;
    known.add(d.id);
    fresh.push(d);
  }
  return fresh;
}

/**
 * A live batch added to the list and its chart. Only decisions the list does not hold yet count:
 * a batch held during a pause may arrive after a reload already read the same decisions, and
 * the chart would otherwise count them twice.
 */
export function applyLiveBatch<H extends DecisionHistogram>(
  current: { items: readonly DecisionRecord[]; histogram: H },
  incoming: readonly DecisionRecord[],
  cap: number,
  openEnded: boolean,
): { items: DecisionRecord[]; histogram: H } {
  const fresh = notListed(current.items, incoming);
  return {
    items: mergeNewest(current.items, fresh, cap),
    histogram: addToHistogram(current.histogram, fresh, openEnded),
  };
}
