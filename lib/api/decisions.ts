/** /api/decisions: the stored admission decisions, one of them, their tally and the live feed. */
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import type { DecisionHistogram } from "@/lib/decisions/histogram";
import type { DecisionTallyResponse } from "@/lib/decisions/tally";
import { route } from "./contract";

/** Most decisions one list request returns. */
export const DECISION_PAGE_LIMIT = 500;

/** GET /api/decisions: newest first, and the chart of the same filter. */
export interface DecisionListResponse {
  items: DecisionRecord[];
  histogram: DecisionHistogram;
}

/** GET /api/decisions/{id}: the decision and its audit event (Secret contents removed) as text. */
export interface DecisionDetailResponse {
  decision: DecisionRecord;
  rawEvent: string;
}

/** A message of the live stream GET /api/decisions/stream (`event: decisions`). */
export interface DecisionStreamMessage {
  items: DecisionRecord[];
}

/**
 * The query is the decision filter (lib/decisions/filter.ts, read by parseDecisionFilter) with
 * `limit` and `before` for paging.
 */
export const decisionListRoute = route<DecisionListResponse>()({
  method: "GET",
  path: "/api/decisions",
});

export const decisionDetailRoute = route<DecisionDetailResponse>()({
  method: "GET",
  path: "/api/decisions/[id]",
});

/** The filter's decisions counted by webhook or policy and outcome (query: the filter). */
export const decisionTallyRoute = route<DecisionTallyResponse>()({
  method: "GET",
  path: "/api/decisions/tally",
});

/** Server-Sent Events of DecisionStreamMessage (query: the filter, and `after`). */
export const decisionStreamRoute = route<DecisionStreamMessage>()({
  method: "GET",
  path: "/api/decisions/stream",
});
