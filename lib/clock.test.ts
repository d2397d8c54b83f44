import { describe, expect, it } from "vitest";
import { clockMinute, clockTime, dateTime } from "./clock";

describe("clock", () => {
  // Local times, so the assertions hold in any time zone the tests run in.
  const justAfterMidnight = new Date(2026, 10, 27, 0, 5, 7).getTime();
  const evening = new Date(2026, 10, 27, 19, 46, 25).getTime();

  it("shows a time of day on a 24-hour clock whose day starts at 00, never 24", () => {
    expect(clockTime(justAfterMidnight)).toMatch(/^0?0:05:07$/);
    expect(clockTime(evening)).toBe("19:46:25");
    expect(clockMinute(justAfterMidnight)).toBe("00:05");
    expect(clockMinute(evening)).toBe("19:46");
  });

  it("has no AM or PM anywhere", () => {
    for (const t of [justAfterMidnight, evening])
      for (const s of [clockTime(t), clockMinute(t), dateTime(t)]) expect(s).not.toMatch(/AM|PM/);
  });

  it("gives a range's start with its date", () => {
    expect(dateTime(justAfterMidnight)).toContain("2026");
    expect(dateTime(justAfterMidnight)).toMatch(/0?0:05:07/);
    expect(dateTime(justAfterMidnight)).not.toContain("24:05");
  });
});
