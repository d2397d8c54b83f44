import { describe, expect, it } from "vitest";
import { sortedStringSet } from "./string-set";

describe("sortedStringSet", () => {
  it("drops duplicates and sorts byte-wise", () => {
    expect(sortedStringSet(["b", "a", "B", "b", "", "a"])).toEqual(["", "B", "a", "b"]);
  });

  it("orders characters above U+FFFF after U+E000-U+FFFF, as UTF-8 bytes do", () => {
    // UTF-16: "\u{1F600}" is D83D DE00 < "\uFF01" FF01; UTF-8: F0 9F 98 80 > EF BC 81.
    expect(sortedStringSet(["\u{1F600}", "\uFF01", "z"])).toEqual(["z", "\uFF01", "\u{1F600}"]);
  });
});
