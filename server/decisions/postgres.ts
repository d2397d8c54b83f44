import "server-only";
import pg from "pg";
import type { InsertRows, Listening, Sql, SqlDriver, SqlTx, SqlValue } from "./sql";

/**
 * A value as PostgreSQL can bind it: its text type cannot hold U+0000 (the server refuses the
 * statement, and with it the whole batch, which the apiserver would retry and have refused
 * forever), so a NUL in a string — a webhook's message may carry one — becomes U+FFFD. Applied
 * to every parameter, filters included, so a filter naming a stored value still finds it. (The
 * raw event text keeps it: JSON escapes it as \u0000.)
 */
function pgValue(v: SqlValue): SqlValue {
  return typeof v === "string" && v.includes("\u0000") ? v.replaceAll("\u0000", "\ufffd") : v;
}

/** `?` placeholders → `$1, $2, …` (the store's statements hold no `?` inside literals). */
function render(q: Sql): { text: string; values: Sql["params"] } {
  const parts = q.text.split("?");
  let text = parts[0] ?? "";
  for (let i = 1; i < parts.length; i++) text += `$${i}${parts[i]}`;
  return { text, values: q.params.map(pgValue) };
}

/** Most parameters one INSERT binds (the protocol's limit is 65,535). */
const MAX_PARAMS = 16_000;

type Run = (text: string, values: SqlValue[]) => Promise<Array<Record<string, unknown>>>;

const keyOf = (values: readonly unknown[]) => values.map((v) => String(v)).join("\u0000");

/**
 * Multi-row INSERTs of as many rows as fit MAX_PARAMS, `ON CONFLICT DO NOTHING RETURNING` the id
 * and the unique key, which maps each returned id back to its row (RETURNING's order is not
 * promised; a skipped row returns nothing).
 */
async function insertRows(run: Run, q: InsertRows): Promise<Array<number | undefined>> {
  const width = q.columns.length;
  const keyAt = q.conflict.map((c) => q.columns.indexOf(c));
  const per = Math.max(1, Math.floor(MAX_PARAMS / width));
  const ids: Array<number | undefined> = new Array(q.rows.length).fill(undefined);
  for (let start = 0; start < q.rows.length; start += per) {
    const chunk = q.rows.slice(start, start + per).map((row) => row.map(pgValue));
    const values: SqlValue[] = [];
    const tuples: string[] = [];
    for (const row of chunk) {
      const base = values.length;
      tuples.push(`(${row.map((_, j) => `$${base + j + 1}`).join(", ")})`);
      for (const v of row) values.push(v);
    }
    const got = await run(
      `INSERT INTO ${q.table} (${q.columns.join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT (${q.conflict.join(", ")}) DO NOTHING RETURNING id, ${q.conflict.join(", ")}`,
      values,
    );
    const idOf = new Map(got.map((r) => [keyOf(q.conflict.map((c) => r[c])), Number(r.id)]));
    chunk.forEach((row, j) => {
      const key = keyOf(keyAt.map((k) => row[k]));
      const id = idOf.get(key);
      // Only the first of rows repeating one key was stored.
      if (id !== undefined) idOf.delete(key);
      ids[start + j] = id;
    });
  }
  return ids;
}

/** PostgreSQL through a small pg pool: several dashboard replicas can share one database. */
export class PostgresDriver implements SqlDriver {
  readonly dialect = "postgres";
  private readonly pool: pg.Pool;

  constructor(private readonly connectionString: string) {
    this.pool = new pg.Pool({ connectionString, max: 4 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on("error", () => undefined);
  }

  async query<R>(q: Sql): Promise<R[]> {
    const { text, values } = render(q);
    return (await this.pool.query(text, values)).rows as R[];
  }

  async insert(q: InsertRows): Promise<Array<number | undefined>> {
    return insertRows(async (text, values) => (await this.pool.query(text, values)).rows, q);
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // The server going away between two statements is told as an "error" event on the client,
    // which the pool listens for only while the client is idle: unheard, it is an uncaught
    // exception. The next statement fails anyway, and a client whose ROLLBACK failed is dropped.
    const ignore = () => undefined;
    client.on("error", ignore);
    let broken = false;
    try {
      await client.query("BEGIN");
      const out = await fn({
        query: async <R>(q: Sql) => {
          const { text, values } = render(q);
          return (await client.query(text, values)).rows as R[];
        },
        insert: (q: InsertRows) =>
          insertRows(async (text, values) => (await client.query(text, values)).rows, q),
      });
      await client.query("COMMIT");
      return out;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw e;
    } finally {
      client.off("error", ignore);
      client.release(broken);
    }
  }

  async exec(statements: string): Promise<void> {
    await this.pool.query(statements);
  }

  listen(channel: string, fn: (payload: string) => void, onGap: () => void): Listening {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    let stopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let connectedBefore = false;
    let settle!: () => void;
    const ready = new Promise<void>((r) => (settle = r));
    const connect = () => {
      if (stopped) return;
      const c = new pg.Client({ connectionString: this.connectionString });
      client = c;
      let dropped = false;
      const drop = () => {
        settle();
        if (dropped) return;
        dropped = true;
        c.end().catch(() => undefined);
        if (!stopped) retry = setTimeout(connect, 1000);
      };
      c.on("error", drop);
      c.on("end", drop);
      c.on("notification", (msg) => {
        if (msg.channel === channel && msg.payload !== undefined) fn(msg.payload);
      });
      c.connect()
        .then(() => c.query(`LISTEN ${channel}`))
        .then(() => {
          if (connectedBefore) onGap();
          connectedBefore = true;
          settle();
        })
        .catch(drop);
    };
    connect();
    return {
      ready,
      stop: async () => {
        stopped = true;
        clearTimeout(retry);
        await client?.end().catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
