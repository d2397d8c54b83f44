import { describe, expect, it } from "vitest";
import { parseRFC3339, rfc3339ParseError } from "./go-time";

// Expected texts are Go's time.Parse(time.RFC3339, s) errors (go1.26, the apiserver's parser).
const L = '"2006-01-02T15:04:05Z07:00"';

describe("rfc3339ParseError: Go's time.Parse(time.RFC3339)", () => {
  it.each([
    "2024-02-29T00:00:00Z",
    "2000-02-29T00:00:00Z",
    "0000-02-29T00:00:00Z",
    "2024-01-01T00:00:00.123456789Z",
    "2024-01-01T00:00:00.1234567891234Z",
    "2024-01-01T00:00:00,5+01:00",
    "2024-01-01T9:00:00Z",
    "2024-01-01T00:00:00+24:00",
    "2024-01-01T00:00:00-23:60",
  ])("accepts %s", (s) => {
    expect(rfc3339ParseError(s)).toBeUndefined();
  });

  it.each([
    ["2024-13-01T00:00:00Z", "month"],
    ["2024-00-01T00:00:00Z", "month"],
    ["2024-02-30T00:00:00Z", "day"],
    ["2023-02-29T00:00:00Z", "day"],
    ["1900-02-29T00:00:00Z", "day"],
    ["2024-04-31T00:00:00Z", "day"],
    ["2024-01-00T00:00:00Z", "day"],
    ["2024-01-01T25:00:00Z", "hour"],
    ["2024-01-01T24:00:00Z", "hour"],
    ["2024-01-01T00:60:00Z", "minute"],
    ["2024-01-01T23:59:60Z", "second"],
    ["2024-01-01T00:00:00+25:00", "time zone offset hour"],
    ["2024-01-01T00:00:00*25:00", "time zone offset hour"],
    ["2024-01-01T00:00:00+23:61", "time zone offset minute"],
    ["2024-01-01T00:00:00+25:61", "time zone offset minute"],
  ])("%s: %s out of range", (s, what) => {
    expect(rfc3339ParseError(s)).toBe(`parsing time "${s}": ${what} out of range`);
  });

  it.each([
    ["", "", "2006"],
    ["24-01-01T00:00:00Z", "24-01-01T00:00:00Z", "2006"],
    ["2024-1-01T00:00:00Z", "1-01T00:00:00Z", "01"],
    ["2024-01-01 00:00:00Z", " 00:00:00Z", "T"],
    ["2024-01-01T00:00Z", "Z", ":"],
    ["2024-01-01T00:00:00", "", "Z07:00"],
    ["2024-01-01T00:00:00.Z", ".Z", "Z07:00"],
    ["2024-01-01T00:00:00z", "z", "Z07:00"],
    ["2024-01-01T00:00:00+0100", "+0100", "Z07:00"],
    ["2024-01-01T00:00:00*01:00", "*01:00", "Z07:00"],
  ])("%j: cannot parse %j as %s", (s, rest, elem) => {
    expect(rfc3339ParseError(s)).toBe(
      `parsing time "${s}" as ${L}: cannot parse "${rest}" as "${elem}"`,
    );
  });

  it("text after the zone is extra, reported before an impossible day", () => {
    expect(rfc3339ParseError("2024-02-30T00:00:00Zjunk")).toBe(
      'parsing time "2024-02-30T00:00:00Zjunk": extra text: "junk"',
    );
  });

  it("quotes as the time package does: bytes outside printable ASCII as \\x", () => {
    expect(rfc3339ParseError("2024-01-01T00:00:00\u00e9")).toBe(
      `parsing time "2024-01-01T00:00:00\\xc3\\xa9" as ${L}: cannot parse "\\xc3\\xa9" as "Z07:00"`,
    );
  });

  it.each([
    ["1970-01-01T00:00:00Z", 0],
    ["2024-01-01T00:00:00-23:60", 1704153600],
    ["0001-01-01T00:00:00Z", -62135596800],
    ["0000-12-31T23:00:00-01:00", -62135596800],
    ["9999-12-31T23:59:59.999999999Z", 253402300799],
  ])("%s is Unix second %d", (s, unix) => {
    expect(parseRFC3339(s)).toEqual({ unix });
  });
});
