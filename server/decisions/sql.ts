import "server-only";

/** A value a statement binds (bytes: a BLOB on SQLite, a bytea on PostgreSQL). */
export type SqlValue = string | number | null | Uint8Array;

/** A statement written once with `?` placeholders; each driver renders it for its database. */
export interface Sql {
  text: string;
  params: SqlValue[];
}

/** Builds a statement from a template: interpolated values become bound parameters. */
export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  return { text: strings.join("?"), params: values };
}

/** Joins statements' text and parameters (for optional WHERE clauses). */
export function joinSql(parts: Sql[], separator: string): Sql {
  return {
    text: parts.map((p) => p.text).join(separator),
    params: parts.flatMap((p) => p.params),
  };
}

/** Rows for one table; a row whose `conflict` columns match a stored row is skipped. */
export interface InsertRows {
  table: string;
  columns: readonly string[];
  /** The columns of a unique constraint on `table` (a subset of `columns`). */
  conflict: readonly string[];
  rows: SqlValue[][];
}

/** Runs statements inside one transaction. */
export interface SqlTx {
  /** Rows of a statement (empty for statements without a result). */
  query<R>(q: Sql): Promise<R[]>;
  /**
   * Inserts rows in order, each driver the fastest way it has (SQLite: one prepared statement
   * run per row; PostgreSQL: multi-row statements). Returns each row's id, or undefined for a row
   * skipped because its unique key was already stored (or repeated earlier in `rows`).
   */
  insert(q: InsertRows): Promise<Array<number | undefined>>;
}

export interface Listening {
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * What the decision store needs of a database: statements, transactions, schema set-up. The
 * SQLite and PostgreSQL drivers implement it; the queries themselves live once, in store/.
 */
export interface SqlDriver extends SqlTx {
  readonly dialect: "sqlite" | "postgres";
  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  /** Runs schema statements (no parameters). */
  exec(statements: string): Promise<void>;
  /**
   * Where the database has one (SQLite: a reader thread with its own connection), runs a
   * read-only statement where it does not hold up the process: a count over a million decisions
   * takes most of a second, which on the writer's connection (synchronous) would stall the audit
   * sink and every live stream meanwhile. It sees what is committed. Without it, `query`.
   */
  read?<R>(q: Sql): Promise<R[]>;
  /**
   * Where the database can tell other processes sharing it (PostgreSQL's LISTEN): calls `fn`
   * with each payload sent on `channel` by any connection, and `onGap` after a lost listening
   * connection is back (payloads sent meanwhile are lost). `ready` settles once the first
   * LISTEN is in place (or its first attempt failed; it keeps retrying).
   */
  listen?(channel: string, fn: (payload: string) => void, onGap: () => void): Listening;
  close(): Promise<void>;
}
