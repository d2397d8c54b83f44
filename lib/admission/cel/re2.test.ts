import { describe, expect, test } from "vitest";
import { re2Matches, translateRe2 } from "./re2";

// Expected values are what kube-apiserver v1.37.2 (Go regexp) answered for the same pattern and
// input; lib/admission/cel/cel.oracle.int.test.ts checks the whole table against it live.
describe("re2Matches follows Go's regexp", () => {
  test.each([
    ["😀", "^.$", true], // a code point, not two UTF-16 units
    ["a\rb", "a.b", true], // RE2's `.` excludes only \n
    ["a\nb", "a.b", false],
    ["a\nb", "(?s)a.b", true],
    ["ab", "(?i)A", true], // leading flags, which JavaScript cannot parse inline
    ["é", "\\pL", true], // one-letter Unicode classes
    ["1", "\\PL", true],
    ["αβ", "\\p{Greek}", true], // scripts by name
    ["日本", "^\\p{Han}+$", true],
    ["a", "[[:alpha:]]", true], // POSIX classes
    ["é", "[[:alpha:]]", false], // ASCII only
    ["\u000b", "^\\s$", false], // RE2's \s has no \v
    ["\u00a0", "\\S", true],
    ["{,2}", "a{,2}", false], // not a repetition: a literal
    ["a{,2}", "a{,2}", true],
    ["]", "[]a]", true], // `]` first in a class is a literal
    ["a.b", "\\Qa.b\\E", true],
    ["ab", "\\Aab\\z", true],
    ["😀", "\\x{1F600}", true],
    ["ab", "(?P<n>a)b", true],
  ])("%j matches %j: %s", (input, pattern, expected) => {
    expect(re2Matches(input, pattern)).toBe(expected);
  });
});

describe("translateRe2", () => {
  test.each([
    ["(?=a)", "invalid"], // no lookaround in RE2
    ["a**", "invalid"], // nested repetition
    ["*a", "invalid"], // missing argument
    ["(a", "invalid"],
    ["a)", "invalid"],
    ["[a", "invalid"],
    ["a\\", "invalid"],
    ["[z-a]", "invalid"],
    ["a{1001}", "invalid"],
    ["\\1", "invalid"], // a back-reference: Go has none
    ["\\q", "invalid"], // an escaped letter Go gives no meaning
    ["(?i:a)b", "unsupported"], // scoped flags
    ["(?m)^b", "unsupported"],
    ["[[:^alpha:]]", "unsupported"],
    ["a*(?i)*", "unsupported"], // past a flag group, Go repeats the repetition
    ["(a{333}){3}", "unsupported"], // 999 copies: valid in Go, but a repeated group that repeats
    // Valid in Go, so not invalid, even where untranslatable: Go's own checks run to the end.
    ["(?i:a)\\8", "invalid"],
    ["(?U)a\\Z", "invalid"],
  ])("%j is %s", (pattern, kind) => {
    expect(translateRe2(pattern).kind).toBe(kind);
  });

  test("an undecided pattern makes re2Matches throw rather than guess", () => {
    expect(() => re2Matches("a", "(?m)^a")).toThrow(/multi-line/);
    expect(() => re2Matches("a", "(?=a)")).toThrow(
      expect.objectContaining({ code: "invalid_regular_expression" }),
    );
  });
});

describe("what JavaScript's backtracking would make slow is not evaluated", () => {
  test("a repeated group that repeats or alternates inside", () => {
    expect(translateRe2("(a+)+$").kind).toBe("unsupported");
    expect(translateRe2("^(a|aa)*$").kind).toBe("unsupported");
    expect(translateRe2("^((a|aa))*$").kind).toBe("unsupported"); // nested one level deeper
    expect(translateRe2("^(x(a+))+$").kind).toBe("unsupported");
    // An optional group repeats nothing: the DNS-label pattern stays decided.
    expect(re2Matches("web-1", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")).toBe(true);
  });
  test("a long subject for a pattern with repetitions", () => {
    // (JavaScript would take minutes on this one: about n² steps.)
    const spaces = " ".repeat(200_000) + "x";
    expect(() => re2Matches(spaces, "[ ]+$")).toThrow(/backtrack/);
    expect(re2Matches(spaces, "^ ")).toBe(true); // no repetition: linear
  });
});

describe("refused as Go's regexp.Compile refuses it, with its message", () => {
  // Each message is what Go 1.26's regexp.Compile returned for the pattern ("" = compiled): the
  // error code and the part of the pattern Go quotes.
  test.each([
    ["[", "error parsing regexp: missing closing ]: `[`"],
    ["[a", "error parsing regexp: missing closing ]: `[a`"],
    ["[]", "error parsing regexp: missing closing ]: `[]`"],
    ["a[b", "error parsing regexp: missing closing ]: `[b`"],
    ["(a", "error parsing regexp: missing closing ): `(a`"],
    ["a)", "error parsing regexp: unexpected ): `a)`"],
    ["(?i)(a", "error parsing regexp: missing closing ): `(?i)(a`"],
    ["*", "error parsing regexp: missing argument to repetition operator: `*`"],
    ["a**", "error parsing regexp: invalid nested repetition operator: `**`"],
    ["a*?*", "error parsing regexp: invalid nested repetition operator: `*?*`"],
    ["a{2}*", "error parsing regexp: invalid nested repetition operator: `{2}*`"],
    ["?", "error parsing regexp: missing argument to repetition operator: `?`"],
    ["a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"],
    ["a{2,1}", "error parsing regexp: invalid repeat count: `{2,1}`"],
    ["(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
    ["(?!a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?!`"],
    ["(?<=a)", "error parsing regexp: invalid named capture: `(?<=a)`"],
    ["(?<!a)b>", "error parsing regexp: invalid named capture: `(?<!a)b>`"],
    ["a\\", "error parsing regexp: trailing backslash at end of expression: ``"],
    ["\\x", "error parsing regexp: invalid escape sequence: `\\x`"],
    ["\\xZZ", "error parsing regexp: invalid escape sequence: `\\xZZ`"],
    ["\\xA", "error parsing regexp: invalid escape sequence: `\\xA`"],
    ["\\x{}", "error parsing regexp: invalid escape sequence: `\\x{}`"],
    ["\\x{110000}", "error parsing regexp: invalid escape sequence: `\\x{110000`"],
    ["\\x{1G}", "error parsing regexp: invalid escape sequence: `\\x{1G`"],
    ["\\x{12", "error parsing regexp: invalid escape sequence: `\\x{12`"],
    ["\\pZZ", ""],
    ["\\p{Greek", "error parsing regexp: invalid character class range: `\\p{Greek`"],
    ["\\p1", "error parsing regexp: invalid character class range: `\\p1`"],
    ["[[:foo:]]", "error parsing regexp: invalid character class range: `[:foo:]`"],
    ["[[:Alpha:]]", "error parsing regexp: invalid character class range: `[:Alpha:]`"],
    ["[[:a b:]]", "error parsing regexp: invalid character class range: `[:a b:]`"],
    ["[z-a]", "error parsing regexp: invalid character class range: `z-a`"],
    ["[a-\\d]", "error parsing regexp: invalid escape sequence: `\\d`"],
    ["[a-\\pL]", "error parsing regexp: invalid escape sequence: `\\p`"],
    ["a|*", "error parsing regexp: missing argument to repetition operator: `*`"],
    ["x**y", "error parsing regexp: invalid nested repetition operator: `**`"],
    ["[\\d-z]", ""],
    ["[\\pL-z]", ""],
    ["[[:alpha:]", "error parsing regexp: missing closing ]: `[[:alpha:]`"],
    ["a{1000}", ""],
    // Escapes (parseEscape): back-references, letters and digits Go gives no meaning, \C (any
    // byte), escaped non-ASCII characters; octal escapes are characters.
    ["(a)\\1", "error parsing regexp: invalid escape sequence: `\\1`"],
    ["\\8", "error parsing regexp: invalid escape sequence: `\\8`"],
    ["\\18", "error parsing regexp: invalid escape sequence: `\\1`"],
    ["\\Z", "error parsing regexp: invalid escape sequence: `\\Z`"],
    ["\\C", "error parsing regexp: invalid escape sequence: `\\C`"],
    ["\\cA", "error parsing regexp: invalid escape sequence: `\\c`"],
    ["\\e", "error parsing regexp: invalid escape sequence: `\\e`"],
    ["\\é", "error parsing regexp: invalid escape sequence: `\\é`"],
    ["[\\b]", "error parsing regexp: invalid escape sequence: `\\b`"],
    ["[\\Q]", "error parsing regexp: invalid escape sequence: `\\Q`"],
    ["\\0", ""],
    ["\\12", ""],
    ["\\0123", ""],
    ["[\\0-\\07]", ""],
    ["\\ \\_", ""],
    // Unicode classes (parseUnicodeClass): names as Go looks them up, by canonical form.
    ["\\pX", "error parsing regexp: invalid character class range: `\\pX`"],
    ["\\p", "error parsing regexp: invalid character class range: `\\p`"],
    ["\\p{}", "error parsing regexp: invalid character class range: `\\p{}`"],
    ["\\p{Zzzz}", "error parsing regexp: invalid character class range: `\\p{Zzzz}`"],
    ["\\p{Old_Italic}", "error parsing regexp: invalid character class range: `\\p{Old_Italic}`"],
    ["[\\p{Foo}]", "error parsing regexp: invalid character class range: `\\p{Foo}`"],
    ["\\p{greek}", ""],
    ["\\pl", ""],
    ["\\p{Letter}", ""],
    ["\\p{Cased_Letter}", ""],
    ["\\P{Assigned}", ""],
    ["\\p{ascii}", ""],
    // Named groups and flags (parsePerlFlags).
    ["(?P<n>a)(?P=n)", "error parsing regexp: invalid or unsupported Perl syntax: `(?P`"],
    ["(?P<>a)", "error parsing regexp: invalid named capture: `(?P<>`"],
    ["(?<n-x>a)", "error parsing regexp: invalid named capture: `(?<n-x>`"],
    ["(?P<n", "error parsing regexp: invalid named capture: `(?P<n`"],
    ["(?<1a>a)", ""],
    ["(?i-)", "error parsing regexp: invalid or unsupported Perl syntax: `(?i-)`"],
    ["(?--i)", "error parsing regexp: invalid or unsupported Perl syntax: `(?--`"],
    ["(?i", "error parsing regexp: invalid or unsupported Perl syntax: `(?i`"],
    ["(?z)", "error parsing regexp: invalid or unsupported Perl syntax: `(?z`"],
    // Repeat counts are decimal without leading zeros; anything else is a literal `{`.
    ["a{01}", ""],
    // Repeat counts nested in one another: at most 1000 copies (repeatIsValid).
    ["(a{500}){3}", "error parsing regexp: invalid repeat count: `{3}`"],
    ["(a{500}){3}?", "error parsing regexp: invalid repeat count: `{3}?`"],
    ["((a{10}){10}){11}", "error parsing regexp: invalid repeat count: `{11}`"],
    ["(a{2,}){501}", "error parsing regexp: invalid repeat count: `{501}`"],
    ["(a|b{3}){334}", "error parsing regexp: invalid repeat count: `{334}`"],
  ])("%j", (pattern, goMessage) => {
    const r = translateRe2(pattern);
    if (goMessage === "") expect(r.kind).toBe("ok");
    else expect(r.kind === "invalid" ? `error parsing regexp: ${r.reason}` : r).toBe(goMessage);
  });
  test("what Go reads as characters matches as in Go", () => {
    expect(re2Matches("A", "^\\101$")).toBe(true); // octal
    expect(re2Matches("\u0000", "^[\\0-\\07]$")).toBe(true);
    expect(re2Matches("a{01}", "^a{01}$")).toBe(true); // not a repetition
    expect(re2Matches("a", "^a{01}$")).toBe(false);
    // A repetition after \Q…\E repeats its last character only.
    expect(re2Matches("xya", "\\Qab\\E*")).toBe(true);
    expect(re2Matches("xyz", "\\Qab\\E*")).toBe(false);
    expect(re2Matches("é", "^\\p{Letter}$")).toBe(true);
    expect(re2Matches("α", "^\\p{greek}$")).toBe(true);
  });
  test("a repeated anchor, which Go compiles and JavaScript refuses, is not decided", () => {
    expect(translateRe2("^*").kind).toBe("unsupported");
    expect(translateRe2("a$+").kind).toBe("unsupported");
  });
});
