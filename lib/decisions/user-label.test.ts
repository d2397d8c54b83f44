import { describe, expect, it } from "vitest";
import { impersonationNote, userLabel } from "./user-label";

describe("userLabel", () => {
  it("leads a ServiceAccount with its name, then its namespace", () => {
    expect(userLabel("system:serviceaccount:kube-system:replicaset-controller")).toBe(
      "replicaset-controller (SA, kube-system)",
    );
  });

  it("shows every other user as it is", () => {
    for (const u of [
      "admin",
      "system:kube-controller-manager",
      "system:node:worker-1",
      "oidc:jane@example.com",
      // Not a ServiceAccount's name: a part missing, or one too many.
      "system:serviceaccount:kube-system",
      "system:serviceaccount:a:b:c",
      "",
    ])
      expect(userLabel(u)).toBe(u);
  });
});

describe("impersonationNote", () => {
  it("names who impersonated the request's user, and nothing for a request that did not", () => {
    expect(impersonationNote({ impersonatedBy: "admin" })).toBe("impersonated by admin");
    expect(impersonationNote({})).toBeUndefined();
  });
});
