import { describe, expect, it } from "vitest";
import { recentReads } from "./recent-reads";

describe("recentReads", () => {
  it("shares one read per key while it is recent, then reads again", async () => {
    let t = 0;
    let reads = 0;
    const cached = recentReads<number>(10_000, () => t);
    const read = () => Promise.resolve(++reads);
    const [a, b] = await Promise.all([cached("ctx", read), cached("ctx", read)]);
    expect([a, b, reads]).toEqual([1, 1, 1]);
    t = 9_999;
    expect(await cached("ctx", read)).toBe(1);
    expect(await cached("other", read)).toBe(2);
    t = 10_000;
    expect(await cached("ctx", read)).toBe(3);
  });

  it("forgets a failed read at once", async () => {
    let reads = 0;
    const cached = recentReads<number>(10_000, () => 0);
    await expect(cached("ctx", () => Promise.reject(new Error(`down ${++reads}`)))).rejects.toThrow(
      "down 1",
    );
    expect(await cached("ctx", () => Promise.resolve(++reads))).toBe(2);
  });
});
