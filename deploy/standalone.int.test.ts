/**
 * The container image's server, without Docker: the Dockerfile's runtime layout is assembled
 * from this build's Next.js standalone output (server.js and the node_modules files it traces,
 * .next/static, public, scripts/start.mjs) in a directory of its own, with no other
 * node_modules to fall back on, and started the way the image starts it. It answers
 * /api/health, and the audit sink stores a batch in SQLite — better-sqlite3's native module
 * came along.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../cluster/ports";
import { REPO_ROOT } from "../cluster/harness/stack";
import { auditBatches } from "../test/audit-batches";

const STANDALONE = path.join(REPO_ROOT, ".next", "standalone");
let dir: string;
let child: ChildProcess | undefined;
let base: string;
let output = "";
const token = randomBytes(24).toString("hex");

beforeAll(async () => {
  if (!existsSync(path.join(STANDALONE, "server.js")))
    throw new Error(
      `${STANDALONE}/server.js is missing: build the dashboard (npx next build) with output "standalone"`,
    );
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-image-"));
  const app = path.join(dir, "app");
  // As the Dockerfile's runtime stage copies them.
  cpSync(STANDALONE, app, { recursive: true });
  cpSync(path.join(REPO_ROOT, ".next", "static"), path.join(app, ".next", "static"), {
    recursive: true,
  });
  cpSync(path.join(REPO_ROOT, "public"), path.join(app, "public"), { recursive: true });
  cpSync(path.join(REPO_ROOT, "scripts", "start.mjs"), path.join(app, "scripts", "start.mjs"));
  const [port] = await freePorts(1);
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: app,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      PORT: String(port),
      PORTCULLIS_AUDIT_TOKEN: token,
      PORTCULLIS_DATA_DIR: path.join(dir, "data"),
      TMPDIR: path.join(dir, "tmp"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the server exited (${child.exitCode}):\n${output}`);
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`no answer on ${base}/api/health:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child?.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the image's standalone server", () => {
  it("carries no Next command line and no dev dependency, but better-sqlite3's native module", () => {
    const modules = path.join(dir, "app", "node_modules");
    expect(existsSync(path.join(modules, "next", "dist", "bin", "next"))).toBe(false);
    for (const dev of ["typescript", "vitest", "@playwright/test", "eslint", "esbuild", "tsx"])
      expect(existsSync(path.join(modules, dev)), dev).toBe(false);
    expect(
      existsSync(path.join(modules, "better-sqlite3", "build", "Release", "better_sqlite3.node")),
    ).toBe(true);
  });

  it("answers /api/health", async () => {
    const res = await fetch(`${base}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });

  it("answers the chart's probe, which names a loopback Host, and refuses the pod IP the kubelet would name otherwise", async () => {
    const port = new URL(base).port;
    const probe = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(
          { host: "127.0.0.1", port, path: "/api/health", headers: { host } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
      });
    expect(await probe(`localhost:${port}`)).toBe(200);
    expect(await probe(`10.244.0.7:${port}`)).toBe(421);
  });

  it("stores an audit batch in SQLite", async () => {
    const [batch] = auditBatches(`standalone-${randomBytes(3).toString("hex")}`, "img", 1, 5);
    const res = await fetch(`${base}/api/audit`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: batch,
    });
    expect(res.status, output).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 5, stored: 5 });
    expect(existsSync(path.join(dir, "data", "decisions.sqlite"))).toBe(true);
  });
});
