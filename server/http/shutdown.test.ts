import { describe, expect, it } from "vitest";
import { endOnShutdown, endOpenStreams } from "./shutdown";

describe("endOpenStreams", () => {
  it("ends every registered stream once, skips unregistered ones, and ends later ones at once", async () => {
    const ended: string[] = [];
    endOnShutdown(() => ended.push("a"));
    const unregisterB = endOnShutdown(() => ended.push("b"));
    endOnShutdown(() => {
      throw new Error("its client already closed it");
    });
    endOnShutdown(() => ended.push("c"));
    unregisterB();
    unregisterB();
    expect(endOpenStreams()).toBe(3);
    expect(ended).toEqual(["a", "c"]);
    // Nothing is ended twice.
    expect(endOpenStreams()).toBe(0);
    expect(ended).toEqual(["a", "c"]);
    // A stream opened while the server stops is ended right away.
    endOnShutdown(() => ended.push("late"));
    expect(ended).toEqual(["a", "c"]);
    await Promise.resolve();
    expect(ended).toEqual(["a", "c", "late"]);
  });
});
