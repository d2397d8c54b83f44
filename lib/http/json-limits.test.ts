import { describe, expect, it } from "vitest";
import {
  declaredBodyLimit,
  MAX_AUDIT_BODY_BYTES,
  requestBodyLimit,
  jsonNestsDeeperThan,
  MAX_API_BODY_BYTES,
  MAX_JSON_DEPTH,
  MAX_SIGN_IN_BODY_BYTES,
} from "./json-limits";

const nested = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n);

describe("jsonNestsDeeperThan", () => {
  it("counts objects and arrays, exactly for valid JSON", () => {
    expect(jsonNestsDeeperThan(nested(3), 3)).toBe(false);
    expect(jsonNestsDeeperThan(nested(4), 3)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
    expect(jsonNestsDeeperThan("[[],[],[[]]]", 3)).toBe(false);
    expect(jsonNestsDeeperThan("42", 0)).toBe(false);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ a: "[[[[{{{{" }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ a: 'x\\"[[[[' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify(["\\", [[]]]), 2)).toBe(true);
  });

  it("refuses 20,000 levels at once, and lets the limit itself through", () => {
    expect(jsonNestsDeeperThan(nested(20_000), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonNestsDeeperThan(nested(20_000, '{"a":', "}"), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
  });

  it("keeps the limit where the dashboard can still serialize what it parsed", () => {
    const v: unknown = JSON.parse(nested(MAX_JSON_DEPTH));
    expect(() => JSON.stringify(v)).not.toThrow();
    expect(() => structuredClone(v)).not.toThrow();
  });
});

describe("declaredBodyLimit", () => {
  it("sign-in takes 64 KiB, the rest of the API 3 MiB; the audit sink and pages set their own", () => {
    expect(declaredBodyLimit("/api/session")).toBe(MAX_SIGN_IN_BODY_BYTES);
    expect(declaredBodyLimit("/api/session/oidc/callback")).toBe(MAX_SIGN_IN_BODY_BYTES);
    expect(declaredBodyLimit("/api/predict/dry-run")).toBe(MAX_API_BODY_BYTES);
    expect(declaredBodyLimit("/api/webhooks/x/y")).toBe(MAX_API_BODY_BYTES);
    expect(declaredBodyLimit("/api/audit")).toBeUndefined();
    expect(declaredBodyLimit("/webhooks")).toBeUndefined();
  });
});

describe("requestBodyLimit", () => {
  it("is what proxy.ts checks a declared length against, and the audit sink's own on its route", () => {
    for (const p of ["/api/session", "/api/session/oidc", "/api/predict/dry-run", "/api/x"]) {
      expect(requestBodyLimit(p), p).toBe(declaredBodyLimit(p));
    }
    expect(requestBodyLimit("/api/audit")).toBe(MAX_AUDIT_BODY_BYTES);
    // A page takes no body: nothing larger than the API's.
    expect(requestBodyLimit("/webhooks")).toBe(MAX_API_BODY_BYTES);
  });
});
