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

describe("bidirectional controls in a user name", () => {
  it("writes them out instead of obeying them: a user named \\u202enimda never reads admin", () => {
    const spoof = "\u202enimda\u202c";
    expect(userLabel(spoof)).toBe("\\u202enimda\\u202c");
    expect(impersonationNote({ impersonatedBy: spoof })).toBe(
      "impersonated by \\u202enimda\\u202c",
    );
    // A name shaped like a ServiceAccount's (any authenticator may hand one out) is no exception.
    expect(userLabel("system:serviceaccount:\u202eab:nimda")).toBe("nimda (SA, \\u202eab)");
    for (const c of ["\u061c", "\u200e", "\u200f", "\u202a", "\u202d", "\u2066", "\u2069"])
      expect(userLabel(`a${c}b`)).not.toContain(c);
    // Right-to-left text itself is shown as it is.
    expect(userLabel("שלום")).toBe("שלום");
  });
});
