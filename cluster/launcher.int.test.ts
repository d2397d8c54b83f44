/**
 * `npm run cluster` starts a whole control plane and, on SIGTERM, stops it leaving no process
 * and no published kubeconfig behind.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose command line mentions `needle` (a run directory is unique to one run). */
function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmd.includes(needle)) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

describe("cluster launcher", () => {
  it("stops etcd, kube-apiserver and kube-controller-manager on SIGTERM and leaves nothing behind", async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-launcher-"));
    const launcher = spawn(
      process.execPath,
      ["--import", "tsx", path.join(import.meta.dirname, "launcher.ts")],
      {
        env: {
          ...process.env,
          PORTCULLIS_STATE_DIR: stateDir,
          PORTCULLIS_DASHBOARD_URL: "http://127.0.0.1:1",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    launcher.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    launcher.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => launcher.on("exit", (code) => r(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (
        !stdout.includes("Press Ctrl-C") &&
        Date.now() < deadline &&
        launcher.exitCode === null
      ) {
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(stdout, stderr).toContain("Kubernetes v1.37.2 is running");
      const info = JSON.parse(readFileSync(path.join(stateDir, "cluster.json"), "utf8")) as {
        pids: number[];
        dir: string;
      };
      expect(info.pids).toHaveLength(3);
      expect(info.pids.every(alive)).toBe(true);
      expect(processesMentioning(info.dir).length).toBeGreaterThanOrEqual(3);

      launcher.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(info.pids.filter(alive)).toEqual([]);
      expect(processesMentioning(info.dir)).toEqual([]);
      expect(existsSync(path.join(stateDir, "kubeconfig"))).toBe(false);
      expect(existsSync(info.dir)).toBe(false);
    } finally {
      if (launcher.exitCode === null) launcher.kill("SIGKILL");
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 150_000);
});
