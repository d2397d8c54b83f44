/**
 * Audit batches for sink tests, made from events the real local apiserver wrote
 * (bench/fixtures/audit-events.jsonl): each copy gets its own auditID and a user name unique to
 * the test, and the current time, so a test can count exactly what it stored through the feed's
 * own filter.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseAuditEvent } from "../lib/admission/audit/audit";

const FIXTURE = path.resolve(import.meta.dirname, "../bench/fixtures/audit-events.jsonl");

/** Recorded events that carry exactly one admission decision each (so events = decisions). */
function recordedDecisionEvents(): Array<Record<string, unknown>> {
  return readFileSync(FIXTURE, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => parseAuditEvent(e)?.decisions.length === 1);
}

/** `count` batches of `size` events each, all by `user`; auditIDs `${prefix}-<batch>-<i>`. */
export function auditBatches(
  user: string,
  prefix: string,
  count: number,
  size: number,
  padBytes = 0,
): string[] {
  const events = recordedDecisionEvents();
  if (events.length === 0) throw new Error(`no decision events in ${FIXTURE}`);
  const out: string[] = [];
  const now = new Date().toISOString();
  for (let b = 0; b < count; b++) {
    const items = [];
    for (let i = 0; i < size; i++) {
      const e = events[(b * size + i) % events.length] ?? {};
      items.push({
        ...e,
        auditID: `${prefix}-${b}-${i}`,
        requestReceivedTimestamp: now,
        stageTimestamp: now,
        user: { username: user, groups: ["system:authenticated"] },
        // Random: the store compresses events, and a repeated letter would take no room at all.
        ...(padBytes > 0
          ? {
              userAgent: randomBytes(Math.ceil((padBytes * 3) / 4))
                .toString("base64")
                .slice(0, padBytes),
            }
          : {}),
      });
    }
    out.push(JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items }));
  }
  return out;
}

/** Events per batch body (for counting what a test sent). */
export function eventsIn(batch: string): number {
  return (JSON.parse(batch) as { items: unknown[] }).items.length;
}
