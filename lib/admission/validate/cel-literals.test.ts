import { describe, expect, test } from "vitest";
import {
  celAst,
  foldingError,
  goParseDurationOk,
  goParseRfc3339Ok,
  intLiteralIssues,
  literalIssues,
  literalSign,
  literalSyntaxIssue,
  undefinedRequestField,
} from "./cel-literals";

const ast = (e: string) => {
  const a = celAst(e);
  if (!a) throw new Error(`does not parse: ${e}`);
  return a;
};

describe("Go's literal parsers", () => {
  test.each([
    ["1h2m3.5s", true],
    [".5s", true],
    ["5.s", true],
    ["-1µs", true],
    ["0", true],
    ["1", false], // a unit is required
    ["1 s", false],
    ["1x", false],
    ["", false],
    ["3000000h", false], // over 2^63 ns
  ])("duration %j: %s", (s, ok) => expect(goParseDurationOk(s)).toBe(ok));

  test.each([
    ["2024-02-29T23:59:59.5+01:00", true],
    ["2024-01-01T00:00:00,5Z", true], // Go reads a comma too
    ["2024-02-30T00:00:00Z", false],
    ["2023-02-29T00:00:00Z", false],
    ["2024-01-01t00:00:00Z", false],
    ["2024-01-01T24:00:00Z", false],
    ["0000-01-01T00:00:00Z", false],
    // Go's layout parser: a one-digit hour passes, zone offsets up to 24 hours and 60 minutes too
    ["2024-01-01T9:00:00Z", true],
    ["2024-01-01T00:00:00+24:00", true],
    ["2024-01-01T00:00:00-23:60", true],
    ["2024-01-01T00:00:00+25:00", false],
    ["2024-01-01T00:00:00+23:61", false],
    ["2024-01-01T23:59:60Z", false],
    // cel-go's range is of the instant, after the offset
    ["0001-01-01T00:00:00-01:00", true],
    ["0001-01-01T00:30:00+01:00", false],
    ["0000-12-31T23:00:00-01:00", true],
    ["9999-12-31T23:59:59.999999999Z", true],
    ["9999-12-31T23:59:59-00:01", false],
    ["10000-01-01T00:00:00Z", false],
  ])("timestamp %j: %s", (s, ok) => expect(goParseRfc3339Ok(s)).toBe(ok));
});

describe("literals cel-go's parser refuses", () => {
  // Where the literal starts, and the sign cel-go's grammar folds into it (or none).
  test.each([
    ["-1", 1, 0],
    ["- 1", 2, 0],
    ["!-1", 2, 1],
    ["1 - -1", 5, 4],
    ["x in -1", 6, 5],
    ["1 -1", 3, undefined],
    ["--1", 2, undefined],
    ["- -1", 3, undefined],
    ["-(1)", 2, undefined],
    ["a.b -1", 5, undefined],
  ])("the sign of the literal in %j", (e, start, sign) => expect(literalSign(e, start)).toBe(sign));

  test("int literals past int64, at their sign", () => {
    const e = "-9223372036854775808 < 0 && [9223372036854775808, -9223372036854775809] == []";
    expect(intLiteralIssues(e, ast(e))).toEqual([
      { offset: 29, message: "invalid int literal" },
      { offset: 50, message: "invalid int literal" },
    ]);
  });

  test.each([
    ["18446744073709551616u > 0u", "invalid_integer", 0, 0, "invalid uint literal"],
    ["0x10000000000000000u > 0u", "invalid_hex_integer", 0, 0, "invalid uint literal"],
    ["x < -1e999", "invalid_number", 5, 4, "invalid double literal"],
    [
      "'\\x4' == ''",
      "invalid_hex_escape",
      1,
      0,
      "Syntax error: token recognition error at: ''\\x4''",
    ],
    [
      "'''\\x''' == ''",
      "invalid_hex_escape",
      3,
      2,
      "Syntax error: token recognition error at: ''\\x''",
    ],
    [
      "'\\400' == ''",
      "octal_escape_out_of_range",
      1,
      0,
      "Syntax error: token recognition error at: ''\\4'",
    ],
    ["'\\U00110000' == ''", "invalid_unicode_escape", 1, 0, "invalid unicode code point"],
  ])("%s (cel-js: %s)", (e, code, at, offset, message) =>
    expect(literalSyntaxIssue(e, code, at)).toEqual({ offset, message }),
  );

  test("a raw literal's backslashes are not escapes", () =>
    expect(literalSyntaxIssue("br'\\q' == b''", "invalid_escape_sequence", 3)).toBeNull());
});

describe("checks cel-go makes after type-checking", () => {
  test("literal validators report at the literal, in source order", () => {
    const e = "duration('1x') > duration('1s') && 'a'.matches('(')";
    expect(literalIssues(e, ast(e))).toEqual([
      { offset: 9, message: "invalid duration argument" },
      { offset: 47, message: "invalid matches argument" },
    ]);
  });

  // Patterns Go's regexp.Compile refuses, so the apiserver does (422 "invalid matches argument").
  test.each(["(a)\\\\1", "\\\\8", "\\\\Z", "\\\\C", "\\\\pX", "\\\\cA", "\\\\e", "(?P<n>a)(?P=n)"])(
    "a literal pattern Go refuses: '%s'",
    (pattern) => {
      const e = `object.metadata.name.matches('${pattern}')`;
      expect(literalIssues(e, ast(e))).toEqual([
        { offset: 29, message: "invalid matches argument" },
      ]);
    },
  );

  test.each([
    ["int('x') == 1", "type conversion error from 'string' to 'int'"],
    ["bool('yes')", "type conversion error from 'string' to 'bool'"],
    ["double('1e400') > 0.0", "type conversion error from 'string' to 'double'"],
    ["int(1e19) > 0", "integer overflow"],
    ["uint(-1) > 0u", "unsigned integer overflow"],
    ["[1].all(x, int('z') == x)", "type conversion error from 'string' to 'int'"],
    ["matches('a', '[')", "error parsing regexp: missing closing ]: `[`"],
    ["matches('a', '\\\\8')", "error parsing regexp: invalid escape sequence: `\\8`"],
    ["bool(string(b'x'))", "type conversion error from 'string' to 'bool'"],
    ["string(b'\\xff') == ''", "invalid UTF-8 in bytes, cannot convert to string"],
    ["object[null] == 1", "invalid qualifier type: types.Null"],
    ["object[[1]] == 1", "invalid qualifier type: *types.baseList"],
    ["object[{'a': 1}] == 1", "invalid qualifier type: *types.baseMap"],
    ["object[dyn(b'x')] == 1", "invalid qualifier type: types.Bytes"],
    ["object[timestamp('2024-01-01T00:00:00Z')] == 1", "invalid qualifier type: types.Timestamp"],
    // Through a dyn (the apiserver's messages, measured).
    ["true == bool(dyn(b'x'))", "no such overload: bool(bytes)"],
    ["bool(dyn(1)) == true", "no such overload: bool(int)"],
    ["double(dyn(true)) == 1.0", "no such overload: double(bool)"],
    ["string(dyn(null)) == ''", "no such overload: string(null_type)"],
    ["bool(dyn(dyn('x')))", "type conversion error from 'string' to 'bool'"],
    ["string(dyn(b'\\xff')) == ''", "invalid UTF-8 in bytes, cannot convert to string"],
    ["uint(dyn(-1)) == 1u", "unsigned integer overflow"],
  ])("%s fails to build: %s", (e, message) => expect(foldingError(e, ast(e))).toBe(message));

  test.each([
    "int('+12') == 12",
    "bool('True')",
    "double('Inf') > 0.0",
    "int(object.x) == 1",
    "int(string(b'12')) == 12",
    "int(dyn('12')) == 12",
    "bool(dyn(object))",
    "object[[object][0]] == 1",
    "object['a'] == object[1] && object[1u] == object[true] && object[1.5] == object[-1]",
  ])("%s builds", (e) => expect(foldingError(e, ast(e))).toBeUndefined());

  test("optional selects on request's types name real fields", () => {
    expect(undefinedRequestField(ast("request.userInfo.?nope.hasValue()"))).toEqual({
      offset: 16,
      message: "undefined field 'nope'",
    });
    expect(undefinedRequestField(ast("request.?userInfo.?username.hasValue()"))).toBeUndefined();
    expect(undefinedRequestField(ast("object.?nope.hasValue()"))).toBeUndefined();
  });
});

test("a hostile expression gets no verdict from these checks, never a crash", () => {
  const flat = Array.from({ length: 5000 }, () => "'a' == 'a'").join(" && ");
  expect(celAst(flat)).toBeUndefined(); // deeper than the walks go
  expect(celAst("!".repeat(5000) + "true")).toBeUndefined();
  expect(celAst("'a' == 'a' && 'b' == 'b'")).toBeDefined();
});
