/**
 * The change history against the real apiserver on PostgreSQL (a throwaway server of this test's
 * own, named by DATABASE_URL as in production): see test/history-scenario.ts.
 */
import { afterAll, beforeAll, describe } from "vitest";
import { startPostgres, type TestPostgres } from "../../test/postgres";
import { historyScenario } from "../../test/history-scenario";
import { decisionStore } from "@/server/decisions/instance";

let pg: TestPostgres | undefined;
beforeAll(async () => {
  pg = await startPostgres();
  process.env.DATABASE_URL = pg.url;
}, 60_000);
afterAll(async () => {
  // The pool's connections first: a server stopped under them is an error on each.
  await (await decisionStore()).driver.close();
  await pg?.stop();
});

describe("change history on PostgreSQL", () => {
  historyScenario();
});
