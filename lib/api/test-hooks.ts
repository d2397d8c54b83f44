/**
 * The test-only endpoints under /api/test-hooks (PORTCULLIS_TEST_HOOKS=1, local mode only; 404
 * otherwise, server/testing/hooks.ts): a test waits on the server's state through them — a
 * /metrics scrape made, the audit log read to a given offset — instead of on its clocks.
 */
import { z } from "zod";
import { route } from "./contract";

/** How far a context's /metrics scraper has got: scrapes completed so far, and when the newest was read. */
export interface ScrapeProgress {
  generation: number;
  scrapedAt?: number;
}

/** What file mode's audit log follower has read. */
export interface FollowerStats {
  file: string;
  /** The file being read (the live log, or a rotated one being finished). */
  reading?: string;
  /** Its identity (device and inode, decimal), which outlives a rename by rotation. */
  readingId?: { dev: string; ino: string };
  /** Offset of the last complete line read (and stored) in the file being read. */
  offset: number;
  /** Steps taken so far: each read, rotation check or retry adds one (a test waits on it). */
  steps: number;
  lines: number;
  /** Events with at least one decision, handed to storage. */
  events: number;
  rotations: number;
  truncations: number;
  skipped: { notJson: number; oversized: number; partial: number };
  storeFailures: number;
  lastError?: string;
}

/** The longest one request waits for the follower (a test asks again if it needs longer). */
export const MAX_FOLLOWER_WAIT_MS = 60_000;

export const metricsProgressRoute = route<ScrapeProgress>()({
  method: "GET",
  path: "/api/test-hooks/metrics-scrape",
});

/** Reads the apiserver's /metrics for the request's context now; answers the progress. */
export const scrapeMetricsNowRoute = route<ScrapeProgress>()({
  method: "POST",
  path: "/api/test-hooks/metrics-scrape",
});

/**
 * Without a query, the follower's stats now. With `ino`, `offset` (and `waitMs`), waits until it
 * has read the file of that inode to that offset: `reached` says whether it did in time.
 */
export const auditFollowerRoute = route<{ reached: boolean; stats: FollowerStats }>()({
  method: "GET",
  path: "/api/test-hooks/audit-follower",
  input: z
    .object({
      /** The file's inode (decimal)… */
      ino: z.string().regex(/^\d{1,40}$/),
      /** …and the offset it must be read to. */
      offset: z.coerce.number().int().min(0),
      waitMs: z.coerce
        .number()
        .int()
        .min(0)
        .max(MAX_FOLLOWER_WAIT_MS)
        .default(MAX_FOLLOWER_WAIT_MS),
    })
    .strict()
    .partial()
    .refine((q) => (q.ino === undefined) === (q.offset === undefined), {
      message: "ino and offset come together",
    }),
});
