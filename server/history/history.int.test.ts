/**
 * The change history against the real apiserver on SQLite (the store in a directory of this
 * test's own): see test/history-scenario.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe } from "vitest";
import { historyScenario } from "../../test/history-scenario";

const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-history-int-"));
process.env.PORTCULLIS_DATA_DIR = dir;
delete process.env.DATABASE_URL;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("change history on SQLite", () => {
  historyScenario();
});
