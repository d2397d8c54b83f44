import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dashboardBuildIsCurrent } from "./stack";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A checkout with one source file and one test file, and a build, each at its own time (s). */
function checkout(times: { source: number; test: number; build?: number }): string {
  root = mkdtempSync(path.join(os.tmpdir(), "portcullis-build-"));
  const at = (p: string, t: number, text = "") => {
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
    utimesSync(p, t, t);
  };
  at(path.join(root, "components/webhooks/list.tsx"), times.source);
  at(path.join(root, "lib/webhooks/list.test.ts"), times.test);
  if (times.build !== undefined) at(path.join(root, ".next/BUILD_ID"), times.build, "id");
  return root;
}

describe("dashboardBuildIsCurrent", () => {
  it("is false without a build", () => {
    expect(dashboardBuildIsCurrent(checkout({ source: 100, test: 100 }))).toBe(false);
  });
  it("is true for a build made after every source changed", () => {
    expect(dashboardBuildIsCurrent(checkout({ source: 100, test: 100, build: 200 }))).toBe(true);
  });
  it("is false when a source changed after the build (an older checkout's build)", () => {
    expect(dashboardBuildIsCurrent(checkout({ source: 300, test: 100, build: 200 }))).toBe(false);
  });
  it("ignores test files, which are not in the build", () => {
    expect(dashboardBuildIsCurrent(checkout({ source: 100, test: 300, build: 200 }))).toBe(true);
  });
});
