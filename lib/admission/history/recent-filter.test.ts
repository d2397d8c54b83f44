import { describe, expect, it } from "vitest";
import { recentFilterOf, sameRecentFilter } from "./recent-filter";
import { SEED_FRESH_MS, seededStaleTime } from "@/lib/queries/history";

describe("the /changes filter of a URL", () => {
  it("reads actor, a known kind and name; empty values and unknown kinds are no filter", () => {
    expect(
      recentFilterOf(new URLSearchParams("actor=bob&kind=ValidatingAdmissionPolicy&name=x")),
    ).toEqual({ actor: "bob", kind: "ValidatingAdmissionPolicy", name: "x" });
    expect(recentFilterOf(new URLSearchParams("actor=&kind=Pod&name="))).toEqual({});
    // The change's context is `cluster` (`context` names the tab's own).
    expect(recentFilterOf(new URLSearchParams("cluster=admin@local&context=x"))).toEqual({
      cluster: "admin@local",
    });
  });

  it("tells the same filter however it is spelled", () => {
    expect(sameRecentFilter({}, { actor: undefined })).toBe(true);
    expect(sameRecentFilter({ name: "a" }, { name: "a" })).toBe(true);
    expect(sameRecentFilter({ name: "a" }, { name: "a", actor: "bob" })).toBe(false);
    expect(sameRecentFilter({ cluster: "a" }, { cluster: "b" })).toBe(false);
  });
});

describe("a seeded query's staleTime", () => {
  it("keeps the seed (or newer) fresh on mount, and reads again what the cache held before it", () => {
    const stale = seededStaleTime(1_000);
    expect(stale({ state: { dataUpdatedAt: 1_000 } })).toBe(SEED_FRESH_MS);
    expect(stale({ state: { dataUpdatedAt: 2_000 } })).toBe(SEED_FRESH_MS);
    expect(stale({ state: { dataUpdatedAt: 999 } })).toBe(0);
  });
});
