import { parse } from "@marcbachmann/cel-js";
import { describe, expect, it } from "vitest";
import { leftFoldedRelations } from "./cel-ast";

const fold = (expr: string) =>
  leftFoldedRelations(expr, (parse(expr) as unknown as { ast: unknown }).ast);

describe("leftFoldedRelations: relations grouped as cel-go groups them", () => {
  it("parenthesizes an equality followed by an ordering, left to right", () => {
    expect(fold("a != b <= c")?.text).toBe("(a != b) <= c");
    expect(fold("x == a != b <= c")?.text).toBe("((x == a) != b) <= c");
    expect(fold("1 == 2 < 3 != true")?.text).toBe("((1 == 2) < 3) != true");
    expect(fold("(a) == (b) < (c)")?.text).toBe("((a) == (b)) < (c)");
    expect(fold("f(a != b <= c) == d")?.text).toBe("f((a != b) <= c) == d");
    expect(fold("'a<=b' != 'x' <= 'y'")?.text).toBe("('a<=b' != 'x') <= 'y'");
  });

  it("leaves alone what cel-js already groups as cel-go does", () => {
    for (const e of ["a <= b != c", "(a != b) <= c", "a != (b <= c)", "a == b && c < d", "a in b"])
      expect(fold(e)).toBeUndefined();
  });

  it("maps every offset of the folded text back to the original", () => {
    const f = fold("a != b <= c");
    // "(a != b) <= c": the added "(" is at a, the added ")" at the space before <=.
    expect([..."(a != b) <= c"].map((_, i) => f?.toOriginal(i))).toEqual([
      0, 0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 9, 10,
    ]);
  });
});
