import "server-only";
import pg from "pg";
import type { Sql, SqlDriver, SqlTx } from "./sql";

/** `?` placeholders → `$1, $2, …` (the store's statements hold no `?` inside literals). */
function render(q: Sql): { text: string; values: Sql["params"] } {
  const parts = q.text.split("?");
  let text = parts[0] ?? "";
  for (let i = 1; i < parts.length; i++) text += `$${i}${parts[i]}`;
  return { text, values: q.params };
}

/** PostgreSQL through a small pg pool: several dashboard replicas can share one database. */
export class PostgresDriver implements SqlDriver {
  readonly dialect = "postgres";
  private readonly pool: pg.Pool;

  constructor(connectionString: string) {
    this.pool = new pg.Pool({ connectionString, max: 4 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on("error", () => undefined);
  }

  async query<R>(q: Sql): Promise<R[]> {
    const { text, values } = render(q);
    return (await this.pool.query(text, values)).rows as R[];
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const out = await fn({
        query: async <R>(q: Sql) => {
          const { text, values } = render(q);
          return (await client.query(text, values)).rows as R[];
        },
      });
      await client.query("COMMIT");
      return out;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async exec(statements: string): Promise<void> {
    await this.pool.query(statements);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
