import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { auditIDToFind, MAX_AUDIT_ID, sha256Hex, storedAuditID } from "./audit-id";

describe("sha256Hex", () => {
  it("is SHA-256 of the UTF-8 text, at every padding length", () => {
    const texts = ["", "abc", "é€😀", "x".repeat(1000)];
    for (let n = 50; n < 140; n++) texts.push("a".repeat(n));
    for (const t of texts)
      expect([t.length, sha256Hex(t)]).toEqual([
        t.length,
        createHash("sha256").update(t, "utf8").digest("hex"),
      ]);
  });
});

describe("storedAuditID", () => {
  it("keeps an ID of up to 128 characters as it is", () => {
    const id = "x".repeat(MAX_AUDIT_ID);
    expect(storedAuditID(id)).toBe(id);
    expect(storedAuditID("7e0cbcc6-8f1b-4b8f-a7b4-2f1f8a1d9f00")).toBe(
      "7e0cbcc6-8f1b-4b8f-a7b4-2f1f8a1d9f00",
    );
  });

  it("bounds a longer one, distinct for distinct IDs and never an ID kept as it is", () => {
    const long = `trace-${"a".repeat(130)}`;
    const other = `trace-${"a".repeat(129)}b`;
    const a = storedAuditID(long);
    const b = storedAuditID(other);
    expect(a.startsWith(long.slice(0, 100))).toBe(true);
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThan(MAX_AUDIT_ID);
    expect(a.length).toBeLessThanOrEqual(172);
    expect(storedAuditID("z".repeat(1_000_000)).length).toBeLessThanOrEqual(172);
  });

  it("never keeps half of a surrogate pair", () => {
    const id = `${"a".repeat(99)}😀${"b".repeat(100)}`;
    expect(storedAuditID(id).startsWith(`${"a".repeat(99)}…`)).toBe(true);
  });

  it("is found by the ID the client sent or by the form the feed shows", () => {
    const long = `trace-${"a".repeat(130)}`;
    expect(auditIDToFind(long)).toBe(storedAuditID(long));
    expect(auditIDToFind(storedAuditID(long))).toBe(storedAuditID(long));
    expect(auditIDToFind("short")).toBe("short");
  });
});
