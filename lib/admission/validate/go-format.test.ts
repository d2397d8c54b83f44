import { describe, expect, it } from "vitest";
import { goQuote } from "./go-format";

// Expected values are Go's strconv.Quote output (Go 1.26).
describe("goQuote", () => {
  const cases: [string, string][] = [
    ["a", `"a"`],
    ['say "hi"\n', `"say \\"hi\\"\\n"`],
    ["é\t\x07\x00\x7f", `"é\\t\\a\\x00\\x7f"`],
    ["\u{1F600}", `"\u{1F600}"`],
    ["\ufffd", `"\ufffd"`],
    // Not printable for Go: escaped.
    ["\u2028", `"\\u2028"`],
    ["\u00a0", `"\\u00a0"`],
    ["\u00ad", `"\\u00ad"`],
    ["\u200b", `"\\u200b"`],
    ["\ufeff", `"\\ufeff"`],
    ["\u0085", `"\\u0085"`],
    ["\ue000", `"\\ue000"`],
    ["\u{F0000}", `"\\U000f0000"`],
    ["\u0378", `"\\u0378"`],
    // Assigned after Unicode 15.0 (Go's tables), printable for newer engines: Go escapes them.
    ["\u088f", `"\\u088f"`],
    ["\u{13460}", `"\\U00013460"`],
  ];
  for (const [input, want] of cases) {
    it(`quotes ${JSON.stringify(input)} as Go does`, () => expect(goQuote(input)).toBe(want));
  }

  it("reads a lone surrogate as U+FFFD, as Go's JSON decoder does", () => {
    expect(goQuote("a\ud800b")).toBe(`"a\ufffdb"`);
  });
});
