import "server-only";
import path from "node:path";
import { z } from "zod";
import type { SqliteSync } from "./sqlite";
import type { Retention } from "./store/types";

/** Where decisions are stored and for how long, read from the environment at start-up. */
export interface DecisionsConfig {
  /** PostgreSQL connection string (DATABASE_URL); SQLite when absent. */
  databaseUrl?: string;
  /** The SQLite file (under PORTCULLIS_DATA_DIR, default .portcullis/data). */
  sqliteFile: string;
  /** How SQLite commits reach the disk (PORTCULLIS_SQLITE_SYNC; see SqliteSync). */
  sqliteSync: SqliteSync;
  retention: Retention;
}

const env = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  PORTCULLIS_DATA_DIR: z.string().min(1).optional(),
  PORTCULLIS_DECISIONS_MAX_AGE_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 3650)
    .default(168),
  PORTCULLIS_SQLITE_SYNC: z.enum(["normal", "full"]).default("full"),
  PORTCULLIS_DECISIONS_MAX_ROWS: z.coerce.number().int().min(1000).max(1e9).default(1_000_000),
});

/** Reads the decision storage settings; throws a plain message naming the bad variable. */
export function decisionsConfig(source: NodeJS.ProcessEnv = process.env): DecisionsConfig {
  const parsed = env.safeParse(source);
  if (!parsed.success) {
    throw new Error(
      `bad decision storage setting: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  const e = parsed.data;
  const dataDir = e.PORTCULLIS_DATA_DIR
    ? path.resolve(/*turbopackIgnore: true*/ e.PORTCULLIS_DATA_DIR)
    : path.join(/*turbopackIgnore: true*/ process.cwd(), ".portcullis", "data");
  return {
    databaseUrl: e.DATABASE_URL,
    sqliteFile: path.join(dataDir, "decisions.sqlite"),
    sqliteSync: e.PORTCULLIS_SQLITE_SYNC,
    retention: {
      maxAgeMs: e.PORTCULLIS_DECISIONS_MAX_AGE_HOURS * 3_600_000,
      maxRows: e.PORTCULLIS_DECISIONS_MAX_ROWS,
    },
  };
}
