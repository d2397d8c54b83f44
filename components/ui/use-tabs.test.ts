import { describe, expect, it } from "vitest";
import { tabKeyTarget } from "./use-tabs";

describe("tabKeyTarget (WAI-ARIA tabs keys)", () => {
  it("Right steps on and wraps from the last tab to the first", () => {
    expect(tabKeyTarget("ArrowRight", 0, 3)).toBe(1);
    expect(tabKeyTarget("ArrowRight", 1, 3)).toBe(2);
    expect(tabKeyTarget("ArrowRight", 2, 3)).toBe(0);
  });

  it("Left steps back and wraps from the first tab to the last", () => {
    expect(tabKeyTarget("ArrowLeft", 2, 3)).toBe(1);
    expect(tabKeyTarget("ArrowLeft", 0, 3)).toBe(2);
  });

  it("Home and End go to the first and the last tab", () => {
    expect(tabKeyTarget("Home", 2, 3)).toBe(0);
    expect(tabKeyTarget("End", 0, 3)).toBe(2);
    expect(tabKeyTarget("End", 0, 2)).toBe(1);
  });

  it("leaves every other key, and an empty list, alone", () => {
    for (const k of ["ArrowUp", "ArrowDown", "Enter", " ", "Tab", "a"])
      expect(tabKeyTarget(k, 1, 3)).toBeUndefined();
    expect(tabKeyTarget("ArrowRight", 0, 0)).toBeUndefined();
  });

  it("a single tab stays where it is", () => {
    expect(tabKeyTarget("ArrowRight", 0, 1)).toBe(0);
    expect(tabKeyTarget("ArrowLeft", 0, 1)).toBe(0);
  });
});
