/**
 * /api/history: the change history of admission objects — one object's timeline, one stored
 * version (what a restore opens in the editor), the recent changes across the cluster, and a
 * hook's decisions around the changes of its configuration.
 */
import { z } from "zod";
import type { ChangeRecord } from "@/lib/admission/history/changes";
import type { BeforeAfter } from "@/lib/admission/history/effects";
import { DEFAULT_EFFECT_WINDOW_MIN } from "@/lib/admission/history/effects";
import { HISTORY_KINDS, type HistoryKind } from "@/lib/admission/history/kinds";
import type { RecentFilter } from "@/lib/admission/history/recent-filter";
import type { ChangeMarker, TimelineEntry } from "@/lib/admission/history/timeline";
import type { DecisionHistogram } from "@/lib/decisions/histogram";
import { route } from "./contract";

/** Most changes one page of a timeline or of the recent changes holds. */
const HISTORY_PAGE_LIMIT = 200;

const kind = z.enum(HISTORY_KINDS as [HistoryKind, ...HistoryKind[]]);
const page = {
  limit: z.coerce.number().int().min(1).max(HISTORY_PAGE_LIMIT).default(50),
  /** Changes with ids below this one (the next page). */
  before: z.coerce.number().int().min(1).optional(),
};

/** One page of a timeline as the page reads it from the API (older changes, 50 at a time). */
export const TIMELINE_PAGE = 50;
/**
 * The newest changes a timeline's page renders on the server: what fills a first screen (a
 * change takes at least 100 px), not a whole page. Each server-rendered change costs its markup
 * and its data in the page's HTML (about 2.4 kB) and its render time before the first byte: with
 * 50, the first screen of a long history came after 700 ms. The rest of the first page is read
 * right after hydration.
 */
export const TIMELINE_FIRST_SCREEN = 20;
/** One page of the recent changes across the cluster as the /changes page reads it. */
export const RECENT_PAGE = 100;

/** GET /api/history/objects/{kind}/{name}: one object's changes, newest first, each with its diff. */
export interface TimelineResponse {
  kind: HistoryKind;
  name: string;
  /** How many changes the object has in all. */
  total: number;
  entries: TimelineEntry[];
  /** `before` for the next (older) page; absent on the last. */
  nextBefore?: number;
  /** Whether any record comes from the audit sink (else the page says actors are unknown). */
  audited: boolean;
}

export const historyTimelineRoute = route<TimelineResponse>()({
  method: "GET",
  path: "/api/history/objects/[kind]/[name]",
  input: z.object(page),
});

/**
 * A history page's first screen, read on the server for the context the page renders in, so it
 * is in the page's first HTML; the browser's query starts from it when its tab is in that
 * context. `at` is when it was read (the server's clock).
 */
interface HistorySeed<T> {
  context: string;
  at: number;
  page: T;
}

/**
 * The newest changes of a timeline as a seed (TIMELINE_FIRST_SCREEN of them, with `nextBefore`
 * for the rest): the changes' objects are left out (an empty object
 * stands for a known version), since the page shows only the diffs and a restore reads the
 * version it opens by id.
 */
export type TimelineSeed = HistorySeed<TimelineResponse>;

/** The first page of the recent changes for the URL's filter, as a seed. */
export type RecentChangesSeed = HistorySeed<RecentChangesResponse> & { filter: RecentFilter };

/** GET /api/history/versions/{id}: one stored change with the object after it. */
export const historyVersionRoute = route<ChangeRecord>()({
  method: "GET",
  path: "/api/history/versions/[id]",
});

/** GET /api/history/changes: recent changes across the cluster, newest first (no objects). */
export interface RecentChangesResponse {
  items: ChangeRecord[];
  nextBefore?: number;
}

export const historyRecentRoute = route<RecentChangesResponse>()({
  method: "GET",
  path: "/api/history/changes",
  input: z.object({
    ...page,
    /** A user (actor or impersonator), or `unknown` for the watch's actor-less changes. */
    actor: z.string().trim().max(1024).optional(),
    kind: kind.optional(),
    name: z.string().trim().max(253).optional(),
    /**
     * The kubeconfig context the change was seen through (`unknown`: none known). Not `context`,
     * which every request uses to name the tab's own.
     */
    cluster: z.string().trim().max(253).optional(),
    /** Also the versions found when watching began. */
    observed: z.enum(["1"]).optional(),
  }),
});

/**
 * GET /api/history/effects: a hook's (or policy's) decisions over time with a marker at each
 * change of its configuration, and the decisions `window` minutes either side of each change.
 */
export interface EffectsResponse {
  histogram: DecisionHistogram;
  markers: ChangeMarker[];
  /** One per marker (the newest 20), by the marker's id. */
  comparisons: Array<BeforeAfter & { changeId: number }>;
}

export const historyEffectsRoute = route<EffectsResponse>()({
  method: "GET",
  path: "/api/history/effects",
  input: z.object({
    /** The configuration (webhook configuration, policy) whose changes are marked. */
    kind,
    name: z.string().min(1).max(253),
    /** The webhook (or policy) whose decisions are counted: `hook` for a webhook, `policy` else. */
    hook: z.string().max(253).optional(),
    policy: z.string().max(253).optional(),
    phase: z.enum(["mutating", "validating"]).optional(),
    window: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .default(DEFAULT_EFFECT_WINDOW_MIN),
    from: z.coerce.number().int().min(0).optional(),
    to: z.coerce.number().int().min(0).optional(),
  }),
});
