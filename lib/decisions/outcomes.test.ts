import { describe, expect, it } from "vitest";
import { OUTCOME_TONES, outcomesOfTone } from "./outcomes";

describe("outcomesOfTone", () => {
  it("gives each outcome of a tone, and together the tones give every outcome once", () => {
    expect(outcomesOfTone("alarm")).toEqual(["failed-open", "error", "timeout"]);
    expect(outcomesOfTone("refused")).toEqual(["denied", "rejected"]);
    const all = (["ok", "note", "refused", "alarm"] as const).flatMap((t) => outcomesOfTone(t));
    expect([...all].sort()).toEqual(Object.keys(OUTCOME_TONES).sort());
  });
});
