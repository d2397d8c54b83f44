import "server-only";
import {
  foldAdmissionMetrics,
  histogramQuantile,
  policyDelta,
  webhookDelta,
  type AdmissionMetrics,
  type PolicyMetrics,
  type WebhookMetrics,
} from "@/lib/admission/health/metrics";
import { systemClock, type Clock } from "@/lib/clock";
import type { ScrapeProgress } from "@/lib/api/test-hooks";
import type { KubeClient } from "@/server/kube/client";

/** How often the apiserver's /metrics is read while someone looks at health. */
const SCRAPE_INTERVAL_MS = 15_000;
/** Scrapes kept per context: a rolling window of 15 minutes. */
const KEEP = 60;
/** The recent window compared against the one before it. */
const WINDOW_MS = 5 * 60_000;
/** A request for the report reads /metrics again when the last scrape is older than this. */
const FRESH_MS = 5_000;
/** Scraping stops when nobody asked for this long. */
const IDLE_MS = 2 * 60_000;

interface Scrape {
  at: number;
  metrics: AdmissionMetrics;
}

class ContextScraper {
  readonly scrapes: Scrape[] = [];
  /** Scrapes completed since the process started (the rolling window keeps only the last KEEP). */
  generation = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastAsked = 0;
  private inFlight: Promise<Scrape> | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Reads /metrics now (joining a read already under way). */
  scrapeNow(): Promise<Scrape> {
    this.inFlight ??= (async () => {
      try {
        const text = await this.client.requestText({ path: "/metrics" });
        const scrape = { at: this.clock.now(), metrics: foldAdmissionMetrics(text) };
        this.generation++;
        this.scrapes.push(scrape);
        if (this.scrapes.length > KEEP) this.scrapes.splice(0, this.scrapes.length - KEEP);
        return scrape;
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }

  /** The scrapes so far, the newest read at most a few seconds ago (read now when older). */
  async current(): Promise<Scrape[]> {
    this.lastAsked = this.clock.now();
    const last = this.scrapes.at(-1);
    if (!last || this.clock.now() - last.at > FRESH_MS) await this.scrapeNow();
    if (!this.timer) {
      this.timer = setInterval(() => {
        if (this.clock.now() - this.lastAsked > IDLE_MS) {
          clearInterval(this.timer);
          this.timer = undefined;
          return;
        }
        void this.scrapeNow().catch(() => {});
      }, SCRAPE_INTERVAL_MS);
      this.timer.unref();
    }
    return this.scrapes;
  }
}

const g = globalThis as typeof globalThis & { portcullisScrapers?: Map<string, ContextScraper> };

function scraperFor(context: string, client: KubeClient): ContextScraper {
  g.portcullisScrapers ??= new Map();
  let s = g.portcullisScrapers.get(context);
  if (!s) {
    s = new ContextScraper(client);
    g.portcullisScrapers.set(context, s);
  }
  return s;
}

/**
 * Reads `context`'s /metrics now, whatever the age of the last scrape, and returns the progress
 * after it: a test that has just made the apiserver count calls waits for this scrape, not for
 * the next tick of the 15 s interval (the test hooks, server/testing/hooks.ts).
 */
export async function scrapeAdmissionMetricsNow(
  context: string,
  client: KubeClient,
): Promise<ScrapeProgress> {
  const s = scraperFor(context, client);
  // A read already under way may have been sent before what the caller waits for: a new one.
  await s.scrapeNow().catch(() => undefined);
  const scrape = await s.scrapeNow();
  return { generation: s.generation, scrapedAt: scrape.at };
}

/** How far `context`'s scraper has got (generation 0 before its first scrape). */
export function admissionMetricsProgress(context: string): ScrapeProgress {
  const s = g.portcullisScrapers?.get(context);
  return { generation: s?.generation ?? 0, scrapedAt: s?.scrapes.at(-1)?.at };
}

/**
 * `context`'s scrapes in the rolling window, oldest first, the newest read at most a few seconds
 * ago (what lib/admission/outside-api infers hooks configured outside the API from).
 */
export async function admissionScrapes(
  context: string,
  client: KubeClient,
): Promise<readonly Scrape[]> {
  return [...(await scraperFor(context, client).current())];
}

/** One hook's view across the rolling window. */
interface HookSeries {
  total?: WebhookMetrics;
  window?: WebhookMetrics;
  previousWindow?: WebhookMetrics;
  /** p99 latency (seconds) of each scrape interval, oldest first; null where no call was made. */
  spark: Array<number | null>;
  /** When the first and the last scrape the spark spans were read (ms). */
  sparkSpan?: { from: number; to: number };
}

/** One policy binding's view: since the apiserver started and over the recent window. */
interface PolicySeries {
  total?: PolicyMetrics;
  window?: PolicyMetrics;
}

export interface MetricsView {
  scrapedAt: number;
  windowSeconds: number;
  labelNames: Record<string, string[]>;
  latest: AdmissionMetrics;
  series(key: string): HookSeries;
  /** By policyKey(kind, policy, binding). */
  policySeries(key: string): PolicySeries;
}

/** The apiserver's admission metrics as `context` reads them, with the rolling window. */
export async function admissionMetrics(context: string, client: KubeClient): Promise<MetricsView> {
  const scrapes = await scraperFor(context, client).current();
  const latest = scrapes.at(-1) as Scrape;
  const before = (ms: number) => {
    for (let i = scrapes.length - 2; i >= 0; i--) {
      const s = scrapes[i] as Scrape;
      if (latest.at - s.at >= ms) return s;
    }
    return scrapes.length > 1 ? scrapes[0] : undefined;
  };
  const windowStart = before(WINDOW_MS);
  const previousStart = windowStart
    ? scrapes.find((s) => windowStart.at - s.at <= WINDOW_MS && s.at < windowStart.at)
    : undefined;
  return {
    scrapedAt: latest.at,
    windowSeconds: windowStart ? Math.round((latest.at - windowStart.at) / 1000) : 0,
    labelNames: latest.metrics.labelNames,
    latest: latest.metrics,
    series(key) {
      const total = latest.metrics.webhooks.get(key);
      const window =
        total && windowStart
          ? webhookDelta(total, windowStart.metrics.webhooks.get(key))
          : undefined;
      const startOfWindow = windowStart?.metrics.webhooks.get(key);
      const previousWindow =
        startOfWindow && previousStart
          ? webhookDelta(startOfWindow, previousStart.metrics.webhooks.get(key))
          : undefined;
      const spark: Array<number | null> = [];
      for (let i = 1; i < scrapes.length; i++) {
        const later = (scrapes[i] as Scrape).metrics.webhooks.get(key);
        if (!later) {
          spark.push(null);
          continue;
        }
        const d = webhookDelta(later, (scrapes[i - 1] as Scrape).metrics.webhooks.get(key));
        spark.push(d.durationCount > 0 ? (histogramQuantile(0.99, d.buckets) ?? null) : null);
      }
      const first = scrapes[0];
      return {
        total,
        window,
        previousWindow,
        spark,
        ...(first && scrapes.length > 1 ? { sparkSpan: { from: first.at, to: latest.at } } : {}),
      };
    },
    policySeries(key) {
      const total = latest.metrics.policies.get(key);
      const window =
        total && windowStart
          ? policyDelta(total, windowStart.metrics.policies.get(key))
          : undefined;
      return { total, window };
    },
  };
}
