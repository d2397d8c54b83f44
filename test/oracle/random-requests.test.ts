import { describe, expect, it } from "vitest";
import { Rand } from "./random-requests";

describe("Rand, the randomized oracles' source", () => {
  it("does not fall into a short cycle: 1,000,000 draws, every state new", () => {
    const r = new Rand(1);
    const seen = new Set<number>();
    let repeats = 0;
    for (let i = 0; i < 1_000_000; i++) {
      const x = r.next();
      if (seen.has(x)) repeats++;
      seen.add(x);
    }
    expect(repeats).toBe(0);
  });

  it("draws different cases for different seeds, however long it runs", () => {
    const tail = (seed: number) => {
      const r = new Rand(seed);
      for (let i = 0; i < 50_000; i++) r.next();
      return Array.from({ length: 20 }, () => r.next());
    };
    const tails = [1, 5, 6, 10, 90102].map((s) => JSON.stringify(tail(s)));
    expect(new Set(tails).size).toBe(tails.length);
  });

  it("stays in [0, 1), so pick never reads past the end", () => {
    const r = new Rand(0x7ffffffe);
    for (let i = 0; i < 100_000; i++) {
      const x = r.next();
      expect(x >= 0 && x < 1).toBe(true);
    }
    const a = ["a", "b", "c"];
    for (let i = 0; i < 10_000; i++) expect(a).toContain(r.pick(a));
  });
});
