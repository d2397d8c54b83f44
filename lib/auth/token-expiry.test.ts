import { describe, expect, it } from "vitest";
import { bearerTokenExpiry } from "./token-expiry";

const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
const jwt = (payload: unknown) => `${part({ alg: "RS256", kid: "k" })}.${part(payload)}.c2ln`;

describe("bearerTokenExpiry", () => {
  it("reads a JWT's exp claim as milliseconds", () => {
    expect(bearerTokenExpiry(jwt({ sub: "system:serviceaccount:a:b", exp: 1_900_000_000 }))).toBe(
      1_900_000_000_000,
    );
  });

  it("says nothing of opaque tokens, or of a JWT without a usable exp", () => {
    expect(bearerTokenExpiry("0123456789abcdef0123456789abcdef")).toBeUndefined();
    expect(bearerTokenExpiry("a.b")).toBeUndefined();
    expect(bearerTokenExpiry(jwt({ sub: "x" }))).toBeUndefined();
    expect(bearerTokenExpiry(jwt({ exp: "1900000000" }))).toBeUndefined();
    expect(bearerTokenExpiry(jwt({ exp: -1 }))).toBeUndefined();
    expect(bearerTokenExpiry(jwt([1, 2]))).toBeUndefined();
    expect(bearerTokenExpiry(`${part({ alg: "RS256" })}.not*base64.c2ln`)).toBeUndefined();
  });
});
