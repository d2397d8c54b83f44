import { describe, expect, it } from "vitest";
import { decodeCaBundle } from "./x509";

describe("decodeCaBundle against hostile input", () => {
  it(
    "decodes a 1.4 MB bundle of repeated BEGIN lines well under a second",
    { timeout: 1_000 },
    () => {
      const hostile = Buffer.from("-----BEGIN A-----".repeat(85_000)).toString("base64");
      const view = decodeCaBundle(hostile);
      expect(view.certificates).toEqual([]);
      expect(view.error).toBe("no PEM certificate found in caBundle");
    },
  );

  it("drops non-certificate blocks and says so, never echoing them", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n";
    const view = decodeCaBundle(Buffer.from(pem).toString("base64"));
    expect(view.strippedNonCertificate).toBe(true);
    expect(JSON.stringify(view)).not.toContain("c2VjcmV0");
  });
});
