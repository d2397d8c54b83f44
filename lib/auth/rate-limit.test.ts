import { describe, expect, it } from "vitest";
import { clientAddress, RateLimiter } from "./rate-limit";

describe("RateLimiter", () => {
  it("allows `limit` attempts per window and key, then refuses until the window ends", () => {
    const r = new RateLimiter(3, 60_000);
    expect([1, 2, 3, 4].map(() => r.attempt("a", 1000))).toEqual([true, true, true, false]);
    expect(r.retryAfterSeconds("a", 1000)).toBe(60);
    expect(r.attempt("b", 1000)).toBe(true);
    expect(r.attempt("a", 60_999)).toBe(false);
    expect(r.attempt("a", 61_000)).toBe(true);
    expect(r.retryAfterSeconds("a", 61_000)).toBe(0);
  });

  it("says, without counting, whether the next attempt would be refused", () => {
    const r = new RateLimiter(2, 60_000);
    expect(r.blockedForSeconds("a", 0)).toBe(0);
    r.attempt("a", 0);
    expect(r.blockedForSeconds("a", 0)).toBe(0);
    r.attempt("a", 0);
    expect(r.blockedForSeconds("a", 1000)).toBe(59);
    expect(r.blockedForSeconds("a", 1000)).toBe(59); // asking counted nothing
    expect(r.attempt("a", 1000)).toBe(false);
    expect(r.blockedForSeconds("a", 60_000)).toBe(0);
  });

  it("tracks a bounded number of keys", () => {
    const r = new RateLimiter(1, 60_000, 2);
    expect(r.attempt("a", 0)).toBe(true);
    expect(r.attempt("b", 0)).toBe(true);
    expect(r.attempt("c", 0)).toBe(true);
    // "a" was evicted to make room, so it starts again.
    expect(r.attempt("a", 0)).toBe(true);
    expect(r.attempt("c", 0)).toBe(false);
  });
});

describe("clientAddress", () => {
  it("takes the entry the nearest hop wrote", () => {
    expect(clientAddress("6.6.6.6, 10.0.0.7")).toBe("10.0.0.7");
    expect(clientAddress("127.0.0.1")).toBe("127.0.0.1");
    expect(clientAddress(null)).toBe("unknown");
    expect(clientAddress(" , ")).toBe("unknown");
  });
});
