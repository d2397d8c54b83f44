import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildInputsFingerprint, dashboardBuildIsCurrent, markBuildCurrent } from "./stack";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (p: string, text: string, mtime?: number) => {
  mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
  writeFileSync(path.join(root, p), text);
  if (mtime !== undefined) utimesSync(path.join(root, p), mtime, mtime);
};

/** A checkout with two source files and a test file, and (unless `built` is false) its build. */
function checkout(built = true): string {
  root = mkdtempSync(path.join(os.tmpdir(), "portcullis-build-"));
  write("components/webhooks/list.tsx", "export const a = 1;\n");
  write("lib/webhooks/rows.ts", "export const b = 2;\n");
  write("lib/webhooks/list.test.ts", "test\n");
  if (built) {
    write(".next/BUILD_ID", "id");
    markBuildCurrent(buildInputsFingerprint(root), root);
  }
  return root;
}

describe("dashboardBuildIsCurrent", () => {
  it("is false without a build", () => {
    expect(dashboardBuildIsCurrent(checkout(false))).toBe(false);
  });
  it("is false for a build with no record of its sources (not made by the harness)", () => {
    checkout(false);
    write(".next/BUILD_ID", "id");
    expect(dashboardBuildIsCurrent(root)).toBe(false);
  });
  it("is true for a build made from the sources as they are", () => {
    expect(dashboardBuildIsCurrent(checkout())).toBe(true);
  });
  it("is false when a source changed, even when its modification time is older than the build", () => {
    checkout();
    write("lib/webhooks/rows.ts", "export const b = 3;\n", 1_000);
    expect(dashboardBuildIsCurrent(root)).toBe(false);
  });
  it("is false when a source was deleted or added", () => {
    checkout();
    unlinkSync(path.join(root, "lib/webhooks/rows.ts"));
    expect(dashboardBuildIsCurrent(root)).toBe(false);
    write("lib/webhooks/rows.ts", "export const b = 2;\n");
    expect(dashboardBuildIsCurrent(root)).toBe(true);
    write("server/new.ts", "export {};\n");
    expect(dashboardBuildIsCurrent(root)).toBe(false);
  });
  it("is false when a file moved, content unchanged", () => {
    checkout();
    unlinkSync(path.join(root, "lib/webhooks/rows.ts"));
    write("lib/webhooks/rows2.ts", "export const b = 2;\n");
    expect(dashboardBuildIsCurrent(root)).toBe(false);
  });
  it("ignores test files, which are not in the build", () => {
    checkout();
    write("lib/webhooks/list.test.ts", "changed\n");
    expect(dashboardBuildIsCurrent(root)).toBe(true);
  });
});
