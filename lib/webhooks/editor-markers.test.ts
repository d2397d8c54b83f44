import { describe, expect, it } from "vitest";
import { validateDocument } from "@/lib/admission/validate/validate-document";
import { validatorMarkers } from "./editor-markers";

describe("validatorMarkers: what the editor marks from the validator", () => {
  it("YAML the apiserver's YAML path refuses is marked on its token", () => {
    const r = validateDocument("apiVersion: v1\nkind: X\nmetadata:\n  name: .inf\n");
    expect(validatorMarkers(r.issues)).toEqual([
      expect.objectContaining({
        startLineNumber: 4,
        startColumn: 9,
        message: "json: unsupported value: +Inf",
        severity: "error",
      }),
    ]);
  });

  it("a syntax error is left to monaco-yaml", () => {
    const r = validateDocument("apiVersion: v1\nkind: [unclosed\n");
    expect(r.issues.length).toBeGreaterThan(0);
    expect(validatorMarkers(r.issues)).toEqual([]);
  });
});
