/**
 * A fixed-window attempt counter per key (sign-in attempts per client address, and one global
 * key as a backstop). Bounded: at most `maxKeys` keys are tracked; when full, windows that have
 * ended are dropped first, then the oldest. Pure apart from the clock it is given.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** Counts one attempt for `key` at `now`; false when the key is over its limit in this window. */
  attempt(key: string, now: number): boolean {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.evict(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return w.count <= this.limit;
  }

  /** Seconds until `key` may try again (0 when it may now). */
  retryAfterSeconds(key: string, now: number): number {
    const w = this.windows.get(key);
    if (!w || w.count <= this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  /**
   * Seconds until `key` may try again if it tried now (0 when it may): what a caller that must
   * not count the attempt yet (it will be counted later, once admitted) asks first.
   */
  blockedForSeconds(key: string, now: number): number {
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  private evict(now: number): void {
    for (const [k, w] of this.windows) {
      if (now - w.start >= this.windowMs) this.windows.delete(k);
    }
    // Still full: drop the oldest (Map keeps insertion order).
    while (this.windows.size >= this.maxKeys) {
      const first = this.windows.keys().next();
      if (first.done) break;
      this.windows.delete(first.value);
    }
  }
}

/**
 * The client address a request came from, as the nearest proxy (or the server itself) recorded
 * it: the last entry of X-Forwarded-For. Only that entry was written by a hop we run; earlier
 * ones are whatever the client sent.
 */
export function clientAddress(forwardedFor: string | null): string {
  if (!forwardedFor) return "unknown";
  const parts = forwardedFor.slice(-1000).split(",");
  return (parts[parts.length - 1] ?? "").trim().slice(0, 64) || "unknown";
}
