/**
 * Tests and the demo change the local apiserver's static manifest directories at run time: write
 * a file (atomically: a half-written file would fail a reload), then wait until the apiserver
 * reports the new set in force. The apiserver re-reads a directory when its files change
 * (fsnotify, else a one-minute poll) and reports the sha256 of the set it loaded in
 * `apiserver_manifest_admission_config_controller_last_config_info{plugin,hash}`; the hash is
 * computed here the way its `LoadFiles` computes it, so the wait is on that exact set.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { httpsRequest } from "../https-json";
import type { ControlPlaneInfo } from "../control-plane";
import type { ManifestPluginName, StaticManifestDirs } from "../admission-config/manifests";

export { STATIC_SCOPE_LABEL } from "../admission-config/manifests";
export type { ManifestPluginName };

const MANIFEST_EXT = new Set([".yaml", ".yml", ".json"]);

/**
 * The control plane's static manifest directories; throws on a control plane that has none (a
 * minor before 1.37, where manifest-based admission is off by default).
 */
export function manifestDirs(
  info: Pick<ControlPlaneInfo, "admissionManifests"> & { minor?: string },
): StaticManifestDirs {
  if (!info.admissionManifests)
    throw new Error(
      `this control plane (Kubernetes ${info.minor ?? "?"}) loads no static admission manifests`,
    );
  return info.admissionManifests;
}

/**
 * `manifest.LoadFiles`' hash: every non-empty .yaml/.yml/.json file in name order, its bytes then
 * a zero byte; "" for a directory without data.
 */
export function manifestSetHash(dir: string): string {
  const h = createHash("sha256");
  let hasData = false;
  for (const name of readdirSync(dir).sort((a, b) =>
    Buffer.compare(Buffer.from(a), Buffer.from(b)),
  )) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) continue;
    if (!MANIFEST_EXT.has(path.extname(name).toLowerCase())) continue;
    const data = readFileSync(file);
    if (data.length === 0) continue;
    h.update(data).update(Buffer.from([0]));
    hasData = true;
  }
  return hasData ? `sha256:${h.digest("hex")}` : "";
}

/**
 * Writes `objects` (one YAML document each, as JSON) to `<plugin dir>/<fileName>` atomically, or
 * removes the file when `objects` is empty. Returns the hash the apiserver will report once it
 * has loaded the directory.
 */
export function writeStaticManifests(
  info: Pick<ControlPlaneInfo, "admissionManifests">,
  plugin: ManifestPluginName,
  fileName: string,
  objects: readonly Record<string, unknown>[],
): string {
  const dir = manifestDirs(info)[plugin];
  const file = path.join(dir, fileName);
  if (objects.length === 0) rmSync(file, { force: true });
  else {
    // Written under a name the apiserver does not read, then renamed over the target.
    const tmp = path.join(dir, `.${fileName}.${process.pid}.tmp`);
    writeFileSync(tmp, objects.map((o) => JSON.stringify(o, null, 2)).join("\n---\n") + "\n");
    renameSync(tmp, file);
  }
  return manifestSetHash(dir);
}

/** The sets in force by plugin, from the apiserver's metrics (`last_config_info`). */
export async function manifestHashesInForce(
  info: Pick<ControlPlaneInfo, "server" | "caFile" | "tokens">,
): Promise<Partial<Record<ManifestPluginName, string>>> {
  const res = await httpsRequest(`${info.server}/metrics`, {
    ca: readFileSync(info.caFile),
    token: info.tokens.admin,
  });
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  const out: Partial<Record<ManifestPluginName, string>> = {};
  for (const line of res.body.split("\n")) {
    if (!line.startsWith("apiserver_manifest_admission_config_controller_last_config_info{"))
      continue;
    const plugin = /[{,]plugin="([^"]*)"/.exec(line)?.[1];
    const hash = /[{,]hash="([^"]*)"/.exec(line)?.[1];
    if (plugin && hash !== undefined) out[plugin as ManifestPluginName] = hash;
  }
  return out;
}

/**
 * Waits until the apiserver reports `hash` in force for `plugin` (what writeStaticManifests
 * returned), re-reading its metrics each time the previous read is answered; fails after
 * `timeoutMs` with what it last saw.
 */
export async function waitForManifestSet(
  info: Pick<ControlPlaneInfo, "server" | "caFile" | "tokens">,
  plugin: ManifestPluginName,
  hash: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen: string | undefined;
  while (Date.now() < deadline) {
    seen = (await manifestHashesInForce(info))[plugin];
    if (seen === hash) return;
    // The reload follows the file event within milliseconds: polled, as expect.poll would.
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `the apiserver did not load ${plugin}'s manifests ${hash} within ${timeoutMs} ms (in force: ${seen ?? "none"})`,
  );
}
