/**
 * The soak's PostgreSQL server (Debian's `postgresql` package, as test/postgres.ts starts one):
 * a fresh cluster in a temporary directory, listening only on a Unix socket there, that the fault
 * schedule stops (`pg_ctl stop -m fast`, as a crash of the database host looks to its clients) and
 * starts again on the same data.
 */
import pg from "pg";
import { startPostgres, type TestPostgres } from "../../test/postgres";

export interface SoakPostgres extends TestPostgres {
  /** Runs one query on a connection of its own. */
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
}

export async function startSoakPostgres(): Promise<SoakPostgres> {
  const server = await startPostgres(["max_connections=200"]);
  return {
    ...server,
    query: async <R extends Record<string, unknown>>(text: string, values: unknown[] = []) => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        return (await client.query<R>(text, values)).rows;
      } finally {
        await client.end();
      }
    },
  };
}
