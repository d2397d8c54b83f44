/**
 * The soak's PostgreSQL server (Debian's `postgresql` package, as test/postgres.ts starts one):
 * a fresh cluster in a temporary directory, listening only on a Unix socket there, that the fault
 * schedule stops (`pg_ctl stop -m fast`, as a crash of the database host looks to its clients) and
 * starts again on the same data.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export interface SoakPostgres {
  url: string;
  /** Stops the server; clients' connections break at once. */
  halt(): Promise<void>;
  /** Starts it again on the same data; resolves once it accepts connections. */
  resume(): Promise<void>;
  /** Runs one query on a connection of its own. */
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error(`PostgreSQL is not installed (no ${root}/*/bin)`);
  return path.join(root, versions[0], "bin");
}

/** initdb and postgres refuse to run as root: as the `postgres` user then. */
function asPostgres(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0
    ? ["runuser", ["-u", "postgres", "--", cmd, ...args]]
    : [cmd, args];
}

export async function startSoakPostgres(): Promise<SoakPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-soak-pg-"));
  chmodSync(dir, 0o777);
  const data = path.join(dir, "data");
  if (process.getuid?.() === 0) execFileSync("chown", ["postgres", dir]);
  const [initCmd, initArgs] = asPostgres(path.join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "portcullis",
    "--auth=trust",
    "--no-sync",
  ]);
  execFileSync(initCmd, initArgs, { stdio: "ignore" });
  const url = `postgresql://portcullis@/postgres?host=${encodeURIComponent(dir)}`;
  let child: ChildProcess | undefined;

  const start = async () => {
    const [cmd, args] = asPostgres(path.join(bin, "postgres"), [
      "-D",
      data,
      "-k",
      dir,
      "-c",
      "listen_addresses=",
      "-c",
      "max_connections=200",
    ]);
    const c = spawn(cmd, args, { stdio: "ignore" });
    child = c;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (c.exitCode !== null) throw new Error(`postgres exited with code ${c.exitCode}`);
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw new Error("postgres did not accept connections in 60 s");
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const halt = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    const [stopCmd, stopArgs] = asPostgres(path.join(bin, "pg_ctl"), [
      "stop",
      "-D",
      data,
      "-m",
      "fast",
    ]);
    execFileSync(stopCmd, stopArgs, { stdio: "ignore" });
    await exited;
  };
  await start();
  return {
    url,
    halt,
    resume: start,
    query: async <R extends Record<string, unknown>>(text: string, values: unknown[] = []) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<R>(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
