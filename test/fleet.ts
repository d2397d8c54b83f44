/**
 * A fleet for the fleet page's tests and benchmark: kubeconfigs with several contexts (each a
 * cluster of its own), more local control planes of the same binaries, a server address nothing
 * listens on, and a TCP listener that accepts connections and never answers (a hanging cluster).
 */
import net from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startControlPlane, type ControlPlane } from "../cluster/control-plane";
import { freePorts } from "../cluster/ports";
import type { ControlPlaneMinor } from "../cluster/build";

/** One context of a fleet kubeconfig: its own cluster entry and its own user. */
export interface FleetContext {
  name: string;
  server: string;
  caFile: string;
  token: string;
}

/** A kubeconfig with one cluster, user and context per entry; `current` is its current context. */
export function writeFleetKubeconfig(
  file: string,
  contexts: readonly FleetContext[],
  current: string,
): string {
  const lines = ["apiVersion: v1", "kind: Config", "clusters:"];
  for (const c of contexts)
    lines.push(
      `  - name: ${c.name}`,
      "    cluster:",
      `      server: ${c.server}`,
      `      certificate-authority: ${c.caFile}`,
    );
  lines.push("users:");
  for (const c of contexts)
    lines.push(`  - name: ${c.name}`, "    user:", `      token: ${c.token}`);
  lines.push("contexts:");
  for (const c of contexts)
    lines.push(
      `  - name: ${c.name}`,
      "    context:",
      `      cluster: ${c.name}`,
      `      user: ${c.name}`,
    );
  lines.push(`current-context: ${current}`, "");
  writeFileSync(file, lines.join("\n"));
  return file;
}

/** A loopback https address nothing listens on (connections are refused at once). */
export async function unreachableServer(): Promise<string> {
  const [port] = (await freePorts(1)) as [number];
  return `https://127.0.0.1:${port}`;
}

/** A TCP listener that accepts every connection and never sends a byte: a cluster that hangs. */
export async function startHangingListener(): Promise<{ server: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", () => resolve()));
  const addr = srv.address() as net.AddressInfo;
  return {
    server: `https://127.0.0.1:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
}

/**
 * `count` more control planes (apiserver + etcd each, no dashboard), started side by side; with
 * `minors`, the i-th at minors[i] (its binaries built with `npm run cluster:build -- --minor`),
 * else each at the newest.
 */
export async function startControlPlanes(
  count: number,
  minors: readonly ControlPlaneMinor[] = [],
): Promise<{
  planes: ControlPlane[];
  stop(): Promise<void>;
}> {
  const baseDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-fleet-"));
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      // No dashboard of theirs: the audit webhook has nowhere to go.
      startControlPlane({
        dashboardUrl: "http://127.0.0.1:1",
        baseDir,
        ...(minors[i] ? { minor: minors[i] } : {}),
      }),
    ),
  );
  const planes = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  // What their apiservers send is not retried, which would hold up each one's stop.
  for (const p of planes) p.drain();
  const stop = async () => {
    await Promise.all(planes.map((p) => p.stop()));
    rmSync(baseDir, { recursive: true, force: true });
  };
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { planes, stop };
}

/** The admin context of a control plane, named `name`. */
export function adminContext(
  name: string,
  cp: { server: string; caFile: string; tokens: { admin: string } },
): FleetContext {
  return { name, server: cp.server, caFile: cp.caFile, token: cp.tokens.admin };
}
