import { describe, expect, it } from "vitest";
import { tokenSignInBody } from "./sign-in-body";

describe("tokenSignInBody", () => {
  it.each([" ", "\n", " \t\r\n "])("refuses a token of blanks only (%j)", (token) => {
    expect(tokenSignInBody.safeParse({ token }).success).toBe(false);
  });

  it("trims a pasted token", () => {
    expect(tokenSignInBody.parse({ token: "  abc.def\n" })).toEqual({ token: "abc.def" });
  });

  it("refuses an empty, a missing and an oversized token, and other fields", () => {
    expect(tokenSignInBody.safeParse({ token: "" }).success).toBe(false);
    expect(tokenSignInBody.safeParse({}).success).toBe(false);
    expect(tokenSignInBody.safeParse({ token: "a".repeat(16_385) }).success).toBe(false);
    expect(tokenSignInBody.safeParse({ token: "a", user: "admin" }).success).toBe(false);
  });
});
