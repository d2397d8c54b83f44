/**
 * A throwaway PostgreSQL server for store tests, from Debian's `postgresql` package: a fresh
 * cluster in a temporary directory, listening only on a Unix socket there, removed on stop.
 * Missing binaries are a failure (install `postgresql`), never a skip.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  let versions: string[] = [];
  try {
    versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  } catch {
    // reported below
  }
  if (!versions[0]) {
    throw new Error(
      `PostgreSQL is not installed (no ${root}/*/bin): apt-get install -y postgresql`,
    );
  }
  return path.join(root, versions[0], "bin");
}

/** Runs as the `postgres` user when we are root (initdb and postgres refuse to run as root). */
function asPostgres(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0
    ? ["runuser", ["-u", "postgres", "--", cmd, ...args]]
    : [cmd, args];
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-pg-"));
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
  const [cmd, args] = asPostgres(path.join(bin, "postgres"), [
    "-D",
    data,
    "-k",
    dir,
    "-c",
    "listen_addresses=",
    "-c",
    "fsync=on",
  ]);
  const child: ChildProcess = spawn(cmd, args, { stdio: "ignore" });
  const url = `postgresql://portcullis@/postgres?host=${encodeURIComponent(dir)}`;
  const deadline = Date.now() + 30_000;
  const { default: pg } = await import("pg");
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited with code ${child.exitCode}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error("postgres did not accept connections in 30 s");
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        const [stopCmd, stopArgs] = asPostgres(path.join(bin, "pg_ctl"), [
          "stop",
          "-D",
          data,
          "-m",
          "fast",
        ]);
        execFileSync(stopCmd, stopArgs, { stdio: "ignore" });
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
