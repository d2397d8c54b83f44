import { describe, expect, it } from "vitest";
import { testHooksEnabled } from "./hooks";

describe("test hooks", () => {
  it("are off unless PORTCULLIS_TEST_HOOKS=1", () => {
    expect(testHooksEnabled({})).toBe(false);
    expect(testHooksEnabled({ PORTCULLIS_TEST_HOOKS: "" })).toBe(false);
    expect(testHooksEnabled({ PORTCULLIS_TEST_HOOKS: "true" })).toBe(false);
    expect(testHooksEnabled({ PORTCULLIS_TEST_HOOKS: "1" })).toBe(true);
    expect(testHooksEnabled({ PORTCULLIS_TEST_HOOKS: "1", PORTCULLIS_MODE: "local" })).toBe(true);
  });

  it("are never on in shared mode, or when the mode cannot be read", () => {
    expect(testHooksEnabled({ PORTCULLIS_TEST_HOOKS: "1", PORTCULLIS_MODE: "shared" })).toBe(false);
    expect(testHooksEnabled({ PORTCULLIS_TEST_HOOKS: "1", PORTCULLIS_MODE: "other" })).toBe(false);
  });
});
