/**
 * The demo's warm start (`npm run demo` to its "ready" line, every page with data, with the
 * control plane and the dashboard already built; target < 60 s) and the dashboard server's RSS
 * after PORTCULLIS_DEMO_SOAK_MIN minutes (default 10) of the demo's traffic.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startDemo } from "../cluster/harness/demo-process";

export const benches = ["demo-warm-start-s", "demo-server-rss-mb"];

/** Resident set size of a process in MB (from /proc). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m?.[1]) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) / 1024;
}

/** The dashboard's server among the demo's processes (Next names its process next-server). */
function serverPid(pids: number[]): number {
  const pid = pids.find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("next-server");
    } catch {
      return false;
    }
  });
  if (pid === undefined) throw new Error("the demo runs no next-server process");
  return pid;
}

export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-demo-bench-"));
  const demo = await startDemo({ PORTCULLIS_STATE_DIR: stateDir });
  try {
    const out = [{ bench: "demo-warm-start-s", value: demo.readySeconds, unit: "s" }];
    const minutes = Number(process.env.PORTCULLIS_DEMO_SOAK_MIN ?? 10);
    await new Promise((r) => setTimeout(r, minutes * 60_000));
    const pid = serverPid(demo.descendants());
    out.push({ bench: "demo-server-rss-mb", value: Math.round(rssMb(pid)), unit: "MB" });
    process.stderr.write(`demo bench: RSS after ${minutes} min of traffic\n`);
    return out;
  } finally {
    await demo.stop("SIGINT");
    rmSync(stateDir, { recursive: true, force: true });
  }
}
