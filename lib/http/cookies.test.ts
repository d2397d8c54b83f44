import { describe, expect, it } from "vitest";
import { contextCookie, contextCookieHeader } from "./cookies";

describe("context cookie", () => {
  it("reads the plain and the __Host- form", () => {
    expect(contextCookie("a=1; portcullis-context=admin%40local")).toBe("admin@local");
    expect(contextCookie("__Host-portcullis-context=viewer")).toBe("viewer");
  });

  it("ignores malformed values instead of throwing", () => {
    expect(contextCookie("portcullis-context=%E0%A4%A")).toBeUndefined();
    expect(contextCookie(`portcullis-context=${"a".repeat(2000)}`)).toBeUndefined();
    expect(contextCookie("portcullis-context")).toBeUndefined();
    expect(contextCookie(null)).toBeUndefined();
  });

  it("is HttpOnly and SameSite=Strict, and Secure with __Host- over TLS", () => {
    expect(contextCookieHeader("a b", false)).toBe(
      "portcullis-context=a%20b; Path=/; SameSite=Strict; HttpOnly; Max-Age=31536000",
    );
    expect(contextCookieHeader("a", true)).toMatch(/^__Host-portcullis-context=a; .*; Secure$/);
  });
});
