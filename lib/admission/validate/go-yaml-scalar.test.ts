import { describe, expect, it } from "vitest";
import { formatGoFloat32, goScalar, isGoYamlTimestamp } from "./go-yaml-scalar";

describe("formatGoFloat32: strconv.FormatFloat(f, 'g', -1, 32)", () => {
  it.each([
    [1.5, "1.5"],
    [1000, "1000"],
    [100000, "100000"],
    [1e6, "1e+06"],
    [1e21, "1e+21"],
    [0.1, "0.1"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [123456789, "1.2345679e+08"],
    [3.14159265358979, "3.1415927"],
    [-2.5, "-2.5"],
    [-0, "-0"],
    [1e300, "+Inf"],
  ])("%d → %s", (x, want) => expect(formatGoFloat32(x)).toBe(want));
});

describe("goScalar", () => {
  it("resolves only plain untagged scalars; quoted ones are strings", () => {
    expect(goScalar("12", "", true)).toEqual({ kind: "int", value: 12n, unsigned: false });
    expect(goScalar("12", "", false)).toEqual({ kind: "str", value: "12" });
    expect(goScalar("18446744073709551615", "", true)).toEqual({
      kind: "int",
      value: 18446744073709551615n,
      unsigned: true,
    });
  });

  it("go-yaml's timestamp formats", () => {
    for (const s of [
      "2001-01-01",
      "2001-1-1",
      "2001-12-14t21:59:43.10-05:00",
      "2001-12-14 21:59:43.10",
      "2000-02-29",
    ])
      expect(isGoYamlTimestamp(s)).toBe(true);
    for (const s of [
      "2001-02-29",
      "2001-13-01",
      "2001-01-01T10:00:00",
      "2001-12-14 21:59:43.10 -5",
      "2001-01-01T10:00:00+25:00",
      "2001-01-01T24:00:00Z",
      "20010-01-01",
    ])
      expect(isGoYamlTimestamp(s)).toBe(false);
  });
});
