import { describe, expect, test } from "vitest";
import {
  goFormatDouble,
  goIndexOf,
  goIndexOfV026,
  goLastIndexOf,
  goLastIndexOfV026,
  memberRenames,
  goSplit,
  goString,
  goSubstring,
  goTrim,
} from "./cel-go-compat";

// Expected values are cel-go v0.29.2's (kube-apiserver v1.37.2), as the CEL oracle checks live.
describe("cel-go's string functions count code points", () => {
  test("substring", () => {
    expect(goSubstring("😀é", 1n)).toBe("é");
    expect(goSubstring("😀é", 0n, 1n)).toBe("😀");
    expect(() => goSubstring("abc", 4n)).toThrow("index out of range: 4");
    expect(() => goSubstring("abc", 2n, 1n)).toThrow("invalid substring range. start: 2, end: 1");
  });
  test("indexOf and lastIndexOf", () => {
    expect(goIndexOf("😀é", "é")).toBe(1n);
    expect(goIndexOf("abc", "", 5n)).toBe(3n);
    expect(goIndexOf("abc", "c", 3n)).toBe(-1n);
    expect(() => goIndexOf("abc", "a", -1n)).toThrow("index out of range: -1");
    expect(goLastIndexOf("😀a😀", "😀")).toBe(2n);
    expect(goLastIndexOf("😀a😀", "😀", 1n)).toBe(0n);
    expect(goLastIndexOf("", "a")).toBe(-1n);
    expect(goLastIndexOf("abc", "")).toBe(3n);
  });
  test("cel-go v0.26.0 (kube-apiserver v1.35.4, v1.36.3): an empty string is found at the offset as given", () => {
    // ext/strings.go v0.26.0 indexOfOffset and lastIndexOfOffset return the offset before checking it.
    expect(goIndexOfV026("abc", "", 5n)).toBe(5n);
    expect(goIndexOfV026("abc", "", -1n)).toBe(-1n);
    expect(goLastIndexOfV026("abc", "", 7n)).toBe(7n);
    expect(goLastIndexOfV026("abc", "", -2n)).toBe(-2n);
    // v0.29.2 clamps to the length and refuses a negative offset.
    expect(goLastIndexOf("abc", "", 7n)).toBe(3n);
    expect(() => goLastIndexOf("abc", "", -2n)).toThrow("index out of range: -2");
    // Otherwise the same.
    expect(goIndexOfV026("😀é", "é")).toBe(1n);
    expect(() => goIndexOfV026("abc", "a", -1n)).toThrow("index out of range: -1");
    expect(goLastIndexOfV026("abc", "")).toBe(3n);
    expect(goLastIndexOfV026("😀a😀", "😀", 1n)).toBe(0n);
  });
  test("each cel-go release's renames", () => {
    expect(memberRenames("v0.29.2").indexOf).toBe("goIndexOf");
    expect(memberRenames("v0.26.0").indexOf).toBe("goIndexOfV026");
    expect(memberRenames("v0.26.0").lastIndexOf).toBe("goLastIndexOfV026");
  });
  test("split and trim", () => {
    expect(goSplit("😀b", "")).toEqual(["😀", "b"]);
    expect(goSplit("a,b,c", ",", 2n)).toEqual(["a", "b,c"]);
    expect(goSplit("a,b,c", ",", 0n)).toEqual([]);
    expect(goTrim("\u0085x\u0085")).toBe("x"); // Go's unicode.IsSpace has NEL
    expect(goTrim("\ufeffx")).toBe("\ufeffx"); // and not the byte-order mark
  });
});

describe("string(double) prints as Go's %g", () => {
  test.each([
    [100000000, "1e+08"],
    [1234567, "1.234567e+06"],
    [123456, "123456"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1, "1"],
    [1.5, "1.5"],
    [-0, "-0"],
    [Infinity, "+Inf"],
    [NaN, "NaN"],
  ])("%d → %s", (f, s) => {
    expect(goFormatDouble(f)).toBe(s);
    expect(goString(f)).toBe(s);
  });
  test("other values", () => {
    expect(goString(12n)).toBe("12");
    expect(goString(true)).toBe("true");
    expect(goString(new TextEncoder().encode("abc"))).toBe("abc");
    expect(() => goString(new Uint8Array([0xff]))).toThrow(/invalid UTF-8/);
  });
});
