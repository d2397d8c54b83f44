import { describe, expect, it } from "vitest";
import { notifyBreakGlass, openFingerprint, subscribeBreakGlass } from "./events";

describe("break-glass change events", () => {
  it("tells every subscriber, survives one that throws, and stops telling one unsubscribed", () => {
    const heard: string[] = [];
    const offA = subscribeBreakGlass(() => heard.push("a"));
    const offBad = subscribeBreakGlass(() => {
      throw new Error("a closed stream");
    });
    const offB = subscribeBreakGlass(() => heard.push("b"));
    notifyBreakGlass();
    expect(heard).toEqual(["a", "b"]);
    offA();
    notifyBreakGlass();
    expect(heard).toEqual(["a", "b", "b"]);
    offB();
    offBad();
  });

  it("the sweep's fingerprint changes when another replica starts, reverts or fails one", () => {
    const row = (id: string, state: string, outcome?: string) => ({
      record: { id },
      state,
      ...(outcome ? { outcome } : {}),
    });
    const before = openFingerprint([row("a", "active")]);
    expect(openFingerprint([row("a", "active")])).toBe(before);
    expect(openFingerprint([row("a", "active"), row("b", "active")])).not.toBe(before);
    expect(openFingerprint([row("a", "reverting")])).not.toBe(before);
    expect(openFingerprint([row("a", "active", '{"error":"refused"}')])).not.toBe(before);
    expect(openFingerprint([])).not.toBe(before);
  });
});
