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
  /** Stops the server (`pg_ctl stop -m fast`): clients' connections break at once. */
  halt(): Promise<void>;
  /** Starts it again on the same data; resolves once it accepts connections. */
  resume(): Promise<void>;
  /** Stops it and removes its directory. */
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

/** `settings`: more `-c name=value` for the server (fsync stays on). */
export async function startPostgres(settings: string[] = []): Promise<TestPostgres> {
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
  const url = `postgresql://portcullis@/postgres?host=${encodeURIComponent(dir)}`;
  const { default: pg } = await import("pg");
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
      "fsync=on",
      ...settings.flatMap((s) => ["-c", s]),
    ]);
    const c: ChildProcess = spawn(cmd, args, { stdio: "ignore" });
    child = c;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (c.exitCode !== null) throw new Error(`postgres exited with code ${c.exitCode}`);
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw new Error("postgres did not accept connections in 30 s");
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
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
