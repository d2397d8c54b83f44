import { describe, expect, it } from "vitest";
import { parseCaBundle, pemBlocks } from "./pem";

describe("pemBlocks", () => {
  it("finds blocks whose END matches their BEGIN, in order", () => {
    const text = [
      "junk",
      "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
      "-----BEGIN PRIVATE KEY-----\nBBBB\n-----END PRIVATE KEY-----",
      "-----BEGIN CERTIFICATE-----\nCCCC\n-----END X-----",
      "-----BEGIN CERTIFICATE-----\nDDDD\n-----END CERTIFICATE-----",
    ].join("\n");
    expect(pemBlocks(text).map((b) => [b.label, b.body.trim()])).toEqual([
      ["CERTIFICATE", "AAAA"],
      ["PRIVATE KEY", "BBBB"],
      ["CERTIFICATE", "DDDD"],
    ]);
  });

  // Hostile cluster data: the apiserver does not look inside caBundle. These inputs took tens of
  // seconds through the backtracking pattern used before; the timeout fails the test if the
  // scan is not linear again.
  it.each([
    ["repeated BEGIN without END", "-----BEGIN A-----".repeat(85_000)],
    [
      "repeated distinct labels",
      Array.from({ length: 60_000 }, (_, i) => `-----BEGIN L${i}-----`).join(""),
    ],
    ["dashes", "-".repeat(1_400_000)],
    ["BEGIN CERTIFICATE without END", "-----BEGIN CERTIFICATE-----\n".repeat(50_000)],
  ])("%s (1.4 MB) in linear time", { timeout: 1_000 }, (_name, text) => {
    expect(pemBlocks(text)).toEqual([]);
    expect(parseCaBundle(btoa(text))).toEqual([]);
  });
});
