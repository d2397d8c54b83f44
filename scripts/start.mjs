#!/usr/bin/env node
/**
 * `npm start`: serves the production build (or, with --dev, the development server) on a
 * loopback address only. The dashboard acts with the kubeconfig's credentials and has no sign-in
 * of its own, so listening on any other address would hand those credentials to the network:
 * that is refused. PORT picks the port (default 3000); PORTCULLIS_HOST a loopback address
 * (default 127.0.0.1). The port is passed on as PORTCULLIS_PORT, so the request policy allows the
 * loopback host names on that port only.
 */
import { existsSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dev = process.argv.includes("--dev");
const host = process.env.PORTCULLIS_HOST || "127.0.0.1";
const port = process.env.PORT || "3000";

/** True for names and addresses that only this machine can reach. */
function isLoopback(h) {
  if (h === "localhost" || h === "::1" || h === "[::1]") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) {
  process.stderr.write(`portcullis: PORT must be a port number, not "${port}"\n`);
  process.exit(2);
}
if (!isLoopback(host)) {
  process.stderr.write(
    `portcullis: refusing to listen on ${host}: the dashboard acts with your kubeconfig's credentials ` +
      "and has no sign-in of its own, so it listens on loopback addresses only " +
      "(PORTCULLIS_HOST=127.0.0.1, ::1 or localhost). Reach it from elsewhere through an SSH tunnel.\n",
  );
  process.exit(2);
}

process.env.NEXT_TELEMETRY_DISABLED ??= "1";
process.env.PORTCULLIS_PORT = port;
// The container image holds Next's standalone output: server.js stands beside scripts/ and
// serves the build without Next's command line (which the image does not carry).
const standalone = path.join(root, "server.js");
if (!dev && existsSync(standalone)) {
  process.env.HOSTNAME = host.replace(/^\[|\]$/g, "");
  process.env.PORT = port;
  await import(pathToFileURL(standalone).href);
} else {
  // Next's own command line runs in this process (no wrapper to outlive or to signal through).
  const next = path.join(root, "node_modules", "next", "dist", "bin", "next");
  process.argv = [
    process.argv[0],
    next,
    dev ? "dev" : "start",
    "-H",
    host.replace(/^\[|\]$/g, ""),
    "-p",
    port,
  ];
  await import(pathToFileURL(next).href);
}
