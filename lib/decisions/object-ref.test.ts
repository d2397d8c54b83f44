import { describe, expect, it } from "vitest";
import { objectRefText } from "./object-ref";

describe("objectRefText", () => {
  it("names a namespaced object as namespace/name", () => {
    expect(objectRefText({ namespace: "shop", name: "web-1", operation: "UPDATE" })).toBe(
      "shop/web-1",
    );
  });
  it("says a CREATE without a name asked for a generated one", () => {
    expect(objectRefText({ namespace: "shop", name: "", operation: "CREATE" })).toBe(
      "shop/(generated name)",
    );
    expect(objectRefText({ namespace: "", name: "", operation: "CREATE" })).toBe(
      "(generated name)",
    );
  });
  it("gives a cluster-scoped object its bare name", () => {
    expect(objectRefText({ namespace: "", name: "team-a", operation: "DELETE" })).toBe("team-a");
  });
  it("gives a request for a collection its namespace alone, without a trailing slash", () => {
    expect(objectRefText({ namespace: "shop", name: "", operation: "DELETE" })).toBe("shop");
  });
});

describe("objectRefText and bidirectional controls", () => {
  it("writes them out of a name that may hold them (a Role's)", () => {
    expect(objectRefText({ namespace: "a", name: "\u202enimda-resu", operation: "CREATE" })).toBe(
      "a/\\u202enimda-resu",
    );
  });
});
