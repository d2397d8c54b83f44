import "server-only";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import type { InsertRows, Sql, SqlDriver, SqlTx } from "./sql";

type Statement = Database.Statement<unknown[], unknown>;

/**
 * Checkpoints the WAL into the database file on a thread of its own, on its own connection:
 * a checkpoint writes and fsyncs megabytes, and run inside a commit (SQLite's automatic
 * checkpoint) it stalled the batch being acknowledged. PASSIVE never blocks the writer.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");
const db = new Database(workerData.file);
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = FULL");
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
}, workerData.everyMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

/**
 * Runs read-only statements for SqliteDriver.read on a thread of its own, on its own connection
 * (query_only): { id, text, params } in, { id, rows } or { id, error } out, in order.
 */
const READER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.pragma("query_only = ON");
db.pragma("cache_size = -8000");
db.pragma("automatic_index = OFF");
const statements = new Map();
parentPort.on("message", (m) => {
  if (m === "close") { db.close(); parentPort.close(); return; }
  try {
    let s = statements.get(m.text);
    if (!s) { s = db.prepare(m.text); statements.set(m.text, s); }
    parentPort.postMessage({ id: m.id, rows: s.all(...m.params) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String(e && e.message || e) });
  }
});
`;

/** Asks one of the driver's threads to close its connection; waits for it (2 s at most). */
async function stopThread(worker: Worker): Promise<void> {
  const exited = new Promise((r) => worker.once("exit", r));
  worker.postMessage("close");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 2000)))]);
  clearTimeout(timer);
}

/** The reader thread and the reads it has not answered yet, by id. */
interface ReaderThread {
  worker: Worker;
  next: number;
  waiting: Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>;
}

/**
 * How a commit reaches the disk. `full` (the default, the sink's promise that an acknowledged
 * batch is never lost): every commit fsyncs the WAL before the batch is acknowledged, so it
 * survives a power cut too. `normal` (opt-in): the commit is written to the WAL file before the
 * batch is acknowledged, so it survives a crash or kill -9 of the dashboard, but the WAL is
 * fsynced only by the checkpointer's next checkpoint (every 100 ms): a power cut or kernel crash
 * can lose the last ~100 ms of acknowledged batches. Ingestion measured about twice as fast.
 */
export type SqliteSync = "normal" | "full";

/**
 * SQLite through better-sqlite3: WAL journal, one writing connection, checkpoints off the commit
 * path on the checkpointer's thread. Statements are prepared once and cached by text;
 * transactions are serialised.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = "sqlite";
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    sync: SqliteSync = "full",
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    // 16 KB pages (applies when the file is created): a commit writes a quarter as many WAL frames,
    // one write call each, which measured a third less commit time than 4 KB pages.
    this.db.pragma("page_size = 16384");
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(sync === "full" ? "synchronous = FULL" : "synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    // Bounded page cache: memory stays flat however many decisions are stored.
    this.db.pragma("cache_size = -8000");
    // No transient indexes: without statistics the planner would build one over a whole table
    // to join a hook's spans to their decisions, which are read by id ranges.
    this.db.pragma("automatic_index = OFF");
    // Checkpoints run on the checkpointer's thread, and the writer finishes one (after its
    // commit) once the WAL holds 1,000 pages (16 MB): under sustained ingestion the thread's
    // checkpoints never catch up at a transaction boundary, and the WAL starts over from its
    // beginning only when a transaction begins with all of it copied. Without this it grew to the
    // limit (256 MB at 16,000 pages), every commit extending the file, which cost the kernel a new
    // page and block per 4 KB written; restarting rewrites the same cached pages of a 16 MB file
    // (about 0.7 µs less per stored event, measured). The thread has usually copied all but the
    // last commits by then, so the writer's share stays small.
    this.db.pragma("wal_autocheckpoint = 1000");
    this.db.pragma("journal_size_limit = 67108864");
    this.checkpointer = new Worker(CHECKPOINTER, {
      eval: true,
      workerData: { file, everyMs: 100 },
    });
    this.checkpointer.on("error", (e) =>
      console.warn(
        `portcullis: the SQLite checkpointer stopped (the writer checkpoints instead): ${e.message}`,
      ),
    );
    this.checkpointer.unref();
  }

  private readonly checkpointer: Worker;
  private reader?: ReaderThread;

  /** The reader thread, started on first use (again after it stopped). */
  private readerThread(): ReaderThread {
    if (this.reader) return this.reader;
    const worker = new Worker(READER, { eval: true, workerData: { file: this.file } });
    const reader: ReaderThread = { worker, next: 0, waiting: new Map() };
    const fail = (e: Error) => {
      if (this.reader === reader) this.reader = undefined;
      for (const w of reader.waiting.values()) w.reject(e);
      reader.waiting.clear();
    };
    worker.on("message", (m: { id: number; rows?: unknown[]; error?: string }) => {
      const w = reader.waiting.get(m.id);
      reader.waiting.delete(m.id);
      if (reader.waiting.size === 0) worker.unref();
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve(m.rows ?? []);
    });
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("the SQLite reader thread stopped")));
    worker.unref();
    this.reader = reader;
    return reader;
  }

  async read<R>(q: Sql): Promise<R[]> {
    const reader = this.readerThread();
    const id = reader.next++;
    return new Promise<R[]>((resolve, reject) => {
      reader.waiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      // Held open while a read is out, so its answer is awaited even in a process with nothing
      // else to do; unreferenced again when none is.
      reader.worker.ref();
      reader.worker.postMessage({ id, text: q.text, params: q.params });
    });
  }

  private prepare(text: string): Statement {
    let s = this.statements.get(text);
    if (!s) {
      s = this.db.prepare(text);
      this.statements.set(text, s);
    }
    return s;
  }

  private run<R>(q: Sql): R[] {
    const s = this.prepare(q.text);
    if (s.reader) return s.all(...q.params) as R[];
    s.run(...q.params);
    return [];
  }

  async query<R>(q: Sql): Promise<R[]> {
    return this.run<R>(q);
  }

  /**
   * One prepared single-row statement run per row: no RETURNING, no per-batch SQL text. (Rows of
   * 16 per statement measured slower: about a third more per row.)
   */
  private insertRows(q: InsertRows): Array<number | undefined> {
    const s = this.prepare(
      `INSERT INTO ${q.table} (${q.columns.join(", ")}) VALUES (${q.columns.map(() => "?").join(", ")}) ON CONFLICT (${q.conflict.join(", ")}) DO NOTHING`,
    );
    const ids: Array<number | undefined> = new Array(q.rows.length);
    for (let i = 0; i < q.rows.length; i++) {
      const row = q.rows[i] ?? [];
      // Spread, not an array: better-sqlite3 then reads each value from the call's arguments
      // instead of a property lookup per element (a fifth less per row, measured).
      const r = s.run(...row);
      ids[i] = r.changes > 0 ? Number(r.lastInsertRowid) : undefined;
    }
    return ids;
  }

  async insert(q: InsertRows): Promise<Array<number | undefined>> {
    return this.insertRows(q);
  }

  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const out = await fn({
          query: async <R>(q: Sql) => this.run<R>(q),
          insert: async (q: InsertRows) => this.insertRows(q),
        });
        this.db.exec("COMMIT");
        return out;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw e;
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async exec(statements: string): Promise<void> {
    this.db.exec(statements);
  }

  async close(): Promise<void> {
    await this.queue;
    const reader = this.reader;
    this.reader = undefined;
    if (reader) await stopThread(reader.worker);
    await stopThread(this.checkpointer);
    this.db.close();
  }
}
