/**
 * What the history routes answer, gathered from the history store (and, for a hook's effects,
 * the decision store): route handlers stay thin and call these.
 */
import "server-only";
import type { ChangeRecord } from "@/lib/admission/history/changes";
import { beforeAfter, type EffectDecision } from "@/lib/admission/history/effects";
import type { HistoryKind } from "@/lib/admission/history/kinds";
import { markerOf, timelineEntries } from "@/lib/admission/history/timeline";
import type { EffectsResponse, RecentChangesResponse, TimelineResponse } from "@/lib/api/history";
import type { DecisionFilter } from "@/lib/decisions/filter";
import { bucketSizeFor, DEFAULT_CHART_WINDOW_MS } from "@/lib/decisions/histogram";
import { decisionStore } from "@/server/decisions/instance";
import type { DecisionStore } from "@/server/decisions/store";
import { withTracedDurations } from "@/server/traces/decisions";
import { historyStore } from "./instance";
import type { ChangeFilter, HistoryStore } from "./store";
import { recordManifests } from "./manifest-recorder";
import { watchHistory } from "./watch-recorder";

/** Longest a read waits for the watch's first list when it starts watching (it goes on after). */
const WATCH_START_WAIT_MS = 3_000;

/**
 * Starts recording `context` from the watch and the static manifest files (once per process),
 * waiting briefly for the watch's first list.
 */
export async function startWatching(context: string): Promise<void> {
  await Promise.race([
    Promise.all([
      watchHistory(context).catch(() => undefined),
      recordManifests().catch(() => undefined),
    ]),
    new Promise((r) => setTimeout(r, WATCH_START_WAIT_MS).unref()),
  ]);
}

export async function timelineOf(
  kind: HistoryKind,
  name: string,
  page: { limit: number; before?: number },
  store?: HistoryStore,
): Promise<TimelineResponse> {
  const s = store ?? (await historyStore());
  const [{ changes, older }, total] = await Promise.all([
    s.timeline(kind, name, page),
    s.countOf(kind, name),
  ]);
  const last = changes[changes.length - 1];
  return {
    kind,
    name,
    total,
    entries: timelineEntries(changes, older),
    ...(older && last ? { nextBefore: last.id } : {}),
    audited: changes.some((c) => c.source === "audit"),
  };
}

/** The store's context filter for a `cluster` parameter (`unknown`: the changes of none known). */
export function clusterFilter(cluster: string | undefined): { context?: string } {
  if (!cluster) return {};
  return { context: cluster === "unknown" ? "" : cluster };
}

export async function recentChanges(
  f: ChangeFilter,
  page: { limit: number; before?: number },
  store?: HistoryStore,
): Promise<RecentChangesResponse> {
  const items = await (store ?? (await historyStore())).recent(f, page);
  const last = items[items.length - 1];
  return { items, ...(items.length === page.limit && last ? { nextBefore: last.id } : {}) };
}

export async function versionOf(id: number): Promise<ChangeRecord | undefined> {
  return (await historyStore()).version(id);
}

/** Most decisions read either side of one change. */
const MAX_EFFECT_DECISIONS = 20_000;
/** How many of the newest changes get a before/after comparison. */
const MAX_COMPARISONS = 20;

/** The filter's decisions in [from, to], as the comparison needs them (timed calls' durations). */
async function decisionsIn(
  store: DecisionStore,
  filter: DecisionFilter,
  from: number,
  to: number,
): Promise<EffectDecision[]> {
  const out: EffectDecision[] = [];
  let before: number | undefined;
  while (out.length < MAX_EFFECT_DECISIONS) {
    const page = withTracedDurations(
      await store.list(
        { ...filter, from, to: to + 1 },
        { limit: 500, ...(before ? { before } : {}) },
      ),
    );
    for (const d of page)
      out.push({
        time: d.time,
        outcome: d.outcome,
        ...(d.tracedMs && d.tracedMs.length > 0 ? { latencyMs: Math.max(...d.tracedMs) } : {}),
      });
    if (page.length < 500) break;
    before = page[page.length - 1]?.id;
  }
  return out;
}

export async function effectsOf(q: {
  kind: HistoryKind;
  name: string;
  hook?: string;
  policy?: string;
  phase?: "mutating" | "validating";
  window: number;
  from?: number;
  to?: number;
}): Promise<EffectsResponse> {
  const [history, decisions] = await Promise.all([historyStore(), decisionStore()]);
  const to = q.to ?? Date.now();
  const from = q.from ?? to - DEFAULT_CHART_WINDOW_MS;
  const filter: DecisionFilter = {
    outcome: [],
    ...(q.policy ? { policy: q.policy } : { hook: q.hook ?? q.name }),
    ...(q.phase ? { phase: q.phase } : {}),
    // A webhook's decisions within this configuration (a webhook name may be in several).
    ...(q.kind.endsWith("WebhookConfiguration") || q.kind.endsWith("Binding")
      ? { configuration: q.name }
      : {}),
  };
  const bucketMs = bucketSizeFor(from, to);
  const [changes, buckets] = await Promise.all([
    history.changesOf([{ kind: q.kind, name: q.name }], from, to),
    decisions.histogram({ ...filter, from, to }, bucketMs),
  ]);
  const windowMs = q.window * 60_000;
  const comparisons = await Promise.all(
    changes.slice(-MAX_COMPARISONS).map(async (c) => ({
      changeId: c.id,
      ...beforeAfter(
        await decisionsIn(decisions, filter, c.time - windowMs, c.time + windowMs),
        c.time,
        windowMs,
      ),
    })),
  );
  return {
    histogram: { bucketMs, from, to, buckets },
    markers: changes.map(markerOf),
    comparisons,
  };
}
