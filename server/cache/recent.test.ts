import { describe, expect, it } from "vitest";
import { Recent } from "./recent";

describe("Recent", () => {
  it("makes a value once per key while it stays among the most recently used", () => {
    const made: string[] = [];
    const r = new Recent<string>(2);
    const get = (k: string) => r.get(k, () => (made.push(k), `v${k}`));
    expect(get("a")).toBe("va");
    expect(get("b")).toBe("vb");
    expect(get("a")).toBe("va"); // a is now the most recent
    expect(get("c")).toBe("vc"); // evicts b, the least recently used
    expect(get("a")).toBe("va");
    expect(get("b")).toBe("vb"); // made again
    expect(made).toEqual(["a", "b", "c", "b"]);
  });
  it("does not keep a value whose making threw", () => {
    const r = new Recent<number>(4);
    expect(() =>
      r.get("k", () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(r.get("k", () => 7)).toBe(7);
  });
});
