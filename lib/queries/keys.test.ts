import { describe, expect, it } from "vitest";
import { previousOfSameContext, queryKeys } from "./keys";

describe("previousOfSameContext", () => {
  it("keeps the previous answer while a new key of the same context is read, never across contexts", () => {
    const keep = previousOfSameContext("ctx");
    const previous = { answer: 1 };
    expect(keep(previous, { queryKey: queryKeys.lintState("ctx", "a/old") })).toBe(previous);
    expect(keep(previous, { queryKey: queryKeys.lintState("other", "a/old") })).toBeUndefined();
    expect(keep(previous, undefined)).toBeUndefined();
  });
});
