import "server-only";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { tracedDurations } from "@/lib/traces/summary";
import { callsOfRequest } from "./store";

/** Decisions with the apiserver's own timing of each webhook call, where its traces have it. */
export function withTracedDurations<T extends DecisionRecord>(records: T[]): T[] {
  return records.map((d) => {
    const calls = callsOfRequest(d.auditID);
    if (calls.length === 0) return d;
    const ms = tracedDurations(d, calls);
    return ms.length > 0 ? { ...d, tracedMs: ms } : d;
  });
}
