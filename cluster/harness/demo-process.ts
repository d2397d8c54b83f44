/**
 * Runs `npm run demo` as a newcomer does, in a process group of its own (as a terminal runs it),
 * for the demo's tests, the screenshot script and the warm-start benchmark.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { freePorts } from "../ports";
import { REPO_ROOT } from "./stack";

export interface DemoProcess {
  url: string;
  /** Seconds from the start to the "ready" line. */
  readySeconds: number;
  /** The admin context's name in the demo's kubeconfig. */
  context: string;
  child: ChildProcess;
  /** Everything the demo has written to stdout and stderr so far. */
  output(): string;
  /** Process ids of every descendant of the demo's npm process, now. */
  descendants(): number[];
  /**
   * Sends `signal` to the whole group (Ctrl-C is SIGINT) and resolves with the exit code, or the
   * signal npm re-raises on itself after its script has exited.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | NodeJS.Signals | null>;
}

/** Parent pid of every running process (from /proc). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(entry), Number(rest[1]));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Pids of every process below `root`. */
function descendantsOf(root: number): number[] {
  const ppid = parents();
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const p = frontier.pop() as number;
    for (const [pid, parent] of ppid)
      if (parent === p) {
        found.push(pid);
        frontier.push(pid);
      }
  }
  return found;
}

/** True while a process with this pid exists (zombies count as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Starts `npm run demo` on a free port with `env` added and resolves once it prints its URL.
 * Rejects (after stopping it) when it exits first or is not ready within `timeoutMs`.
 */
export async function startDemo(
  env: Record<string, string> = {},
  timeoutMs = 180_000,
): Promise<DemoProcess> {
  const [port] = (await freePorts(1)) as [number];
  const started = Date.now();
  const child = spawn("npm", ["run", "--silent", "demo"], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal)),
  );

  /**
   * SIGKILL to the demo's process group and to every process below it: the control plane's
   * processes run in sessions of their own (so the demo can stop them in order), and a killed
   * demo cannot stop them any more.
   */
  const killAll = () => {
    if (child.pid === undefined) return;
    const below = descendantsOf(child.pid);
    for (const target of [-child.pid, ...below]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };
  const stop = async (signal: NodeJS.Signals = "SIGINT", ms = 60_000) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return child.exitCode ?? child.signalCode;
    if (signal === "SIGKILL") killAll();
    else if (child.pid !== undefined) process.kill(-child.pid, signal);
    const timer = setTimeout(killAll, ms);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };

  const ready = /Portcullis is ready \([\d.]+ s\): (http:\/\/127\.0\.0\.1:\d+)\//;
  const deadline = Date.now() + timeoutMs;
  while (!ready.test(out)) {
    if (child.exitCode !== null) throw new Error(`the demo exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      await stop("SIGINT");
      throw new Error(`the demo was not ready within ${timeoutMs / 1000} s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const url = (ready.exec(out) as RegExpExecArray)[1] as string;
  return {
    url,
    readySeconds: (Date.now() - started) / 1000,
    context: "admin@portcullis-local",
    child,
    output: () => out,
    descendants: () => (child.pid === undefined ? [] : descendantsOf(child.pid)),
    stop,
  };
}
