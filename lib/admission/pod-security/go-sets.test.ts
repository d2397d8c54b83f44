import { describe, expect, it } from "vitest";
import { compareGoStrings, goSetList, goSortStrings } from "./go-sets";

describe("Go string order", () => {
  it("sorts byte-wise: digits before upper case before lower case, shorter prefix first", () => {
    expect(goSortStrings(["b", "B", "10", "9", "a", "ab", ""])).toEqual([
      "",
      "10",
      "9",
      "B",
      "a",
      "ab",
      "b",
    ]);
  });

  it("sorts code points above U+FFFF after U+E000–U+FFFF, as UTF-8 bytes do", () => {
    // UTF-16 code units would put U+1F600 (D83D DE00) before U+FF21 (FF21).
    expect(goSortStrings(["\u{1F600}", "\uFF21", "\uE000"])).toEqual([
      "\uE000",
      "\uFF21",
      "\u{1F600}",
    ]);
    expect(compareGoStrings("\u{1F600}", "\uFFFF")).toBeGreaterThan(0);
    expect(compareGoStrings("x", "x")).toBe(0);
  });

  it("lists a set: distinct and sorted", () => {
    expect(goSetList(["FOO", "BAR", "BAR", "BAZ"])).toEqual(["BAR", "BAZ", "FOO"]);
  });
});
