// Plain Node (no Next, no "server-only"): shared by the dashboard server and the command line;
// eslint.config.mjs keeps it that way.
/**
 * The apiserver's static manifest directories as Portcullis reads them: each directory's files
 * (as `manifest.LoadFiles` picks them), judged by lib/admission/manifests, with the sha256 the
 * apiserver reports for the set (`apiserver_manifest_admission_config_controller_last_config_info`).
 *
 * Directories are named by a path list (PORTCULLIS_ADMISSION_MANIFESTS, `--admission-manifests`):
 * each entry `DIR`, or `Plugin=DIR` to say which plugin's it is; without it the plugin is the
 * one whose kinds the directory holds. A directory that fails to load keeps the set it loaded last,
 * with the error shown beside it, as the apiserver does on a reload; `ManifestWatcher` re-reads a
 * directory when its files change.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import {
  isManifestFileName,
  loadManifestDir,
  manifestObjects,
  type ManifestFile,
  type ManifestObject,
} from "@/lib/admission/manifests/load";
import {
  MANIFEST_PLUGINS,
  PLUGIN_KINDS,
  type ManifestPlugin,
} from "@/lib/admission/model/manifests";
import type { ManifestObjects } from "@/lib/admission/model/snapshot";
import { parseDocuments } from "@/lib/admission/validate/source-map";

/** One entry of a manifest directory list. */
export interface ManifestDirSpec {
  readonly dir: string;
  /** The plugin the directory belongs to, when the entry said (`Plugin=DIR`). */
  readonly plugin?: ManifestPlugin;
}

/** What is known of one directory. */
export interface ManifestDirState {
  readonly dir: string;
  /** Its plugin: given, or inferred from its kinds; undefined while it holds no object. */
  readonly plugin: ManifestPlugin | undefined;
  /** The set in force: the last one that loaded (empty before any did). */
  readonly objects: readonly ManifestObject[];
  /** `sha256:<hex>` of the set in force as the apiserver computes it ("" for no data). */
  readonly hash: string;
  /** Why the directory's current files do not load (the previous set stays in force), if they do not. */
  readonly error?: string;
  /** When the directory was last read (ms since the epoch). */
  readonly readAt: number;
}

/** Parses a path list (`:`-separated on Unix): `DIR` or `Plugin=DIR` entries, empty ones dropped. */
export function parseManifestDirList(value: string): ManifestDirSpec[] {
  return value
    .split(path.delimiter)
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map(parseManifestDirEntry);
}

/** One `DIR` or `Plugin=DIR` entry. */
export function parseManifestDirEntry(entry: string): ManifestDirSpec {
  const eq = entry.indexOf("=");
  if (eq > 0) {
    const name = entry.slice(0, eq);
    if ((MANIFEST_PLUGINS as readonly string[]).includes(name))
      return { plugin: name as ManifestPlugin, dir: path.resolve(entry.slice(eq + 1)) };
  }
  return { dir: path.resolve(entry) };
}

/** `manifest.LoadFiles`: the directory's files read, in name order, with the set's hash. */
function readManifestFiles(dir: string): { files: ManifestFile[]; hash: string } {
  const names = readdirSync(dir).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const h = createHash("sha256");
  let hasData = false;
  const files: ManifestFile[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory() || !isManifestFileName(name)) continue;
    const data = readFileSync(file);
    if (data.length === 0) continue;
    h.update(data).update(Buffer.from([0]));
    hasData = true;
    files.push({ path: file, text: data.toString("utf8") });
  }
  return { files, hash: hasData ? `sha256:${h.digest("hex")}` : "" };
}

/** The plugin whose kinds the files hold first (a List's items looked into); undefined if none. */
function inferManifestPlugin(files: readonly ManifestFile[]): ManifestPlugin | undefined {
  const pluginOf = (v: unknown): ManifestPlugin | undefined => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
    const o = v as Record<string, unknown>;
    if (o["kind"] === "List" && Array.isArray(o["items"])) {
      for (const item of o["items"]) {
        const p = pluginOf(item);
        if (p) return p;
      }
      return undefined;
    }
    const kind = typeof o["kind"] === "string" ? o["kind"].replace(/List$/, "") : "";
    return MANIFEST_PLUGINS.find((p) => (PLUGIN_KINDS[p] as readonly string[]).includes(kind));
  };
  for (const f of files)
    for (const doc of parseDocuments(f.text)) {
      const p = pluginOf(doc.value);
      if (p) return p;
    }
  return undefined;
}

/**
 * Reads one directory. `previous` is the state it replaces: when the files do not load, its set
 * stays in force with the error beside it.
 */
export function readManifestDir(
  spec: ManifestDirSpec,
  previous?: ManifestDirState,
): ManifestDirState {
  const readAt = Date.now();
  const keep = (error: string): ManifestDirState => ({
    dir: spec.dir,
    plugin: previous?.plugin ?? spec.plugin,
    objects: previous?.objects ?? [],
    hash: previous?.hash ?? "",
    error,
    readAt,
  });
  let read: { files: ManifestFile[]; hash: string };
  try {
    read = readManifestFiles(spec.dir);
  } catch (e) {
    return keep(
      `failed to read manifest directory ${JSON.stringify(spec.dir)}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const plugin = spec.plugin ?? inferManifestPlugin(read.files);
  if (plugin === undefined) {
    // No object of any plugin: an empty directory loads nothing; anything else is refused as the
    // loader of any plugin refuses it.
    if (read.files.length === 0)
      return { dir: spec.dir, plugin: undefined, objects: [], hash: read.hash, readAt };
    const probe = loadManifestDir("ValidatingAdmissionWebhook", read.files);
    if (probe.ok) return { dir: spec.dir, plugin: undefined, objects: [], hash: read.hash, readAt };
    return keep(probe.error);
  }
  const loaded = loadManifestDir(plugin, read.files);
  if (!loaded.ok) return keep(loaded.error);
  return { dir: spec.dir, plugin, objects: loaded.objects, hash: read.hash, readAt };
}

/** The objects in force of every directory, as `withManifests` adds them to a snapshot. */
export function manifestObjectsOf(dirs: readonly ManifestDirState[]): ManifestObjects {
  return manifestObjects(
    dirs.flatMap((d) => (d.plugin ? [{ plugin: d.plugin, dir: d.dir, objects: d.objects }] : [])),
  );
}

/** What a watcher reports: every directory's state, and the generation (one more per change). */
export interface ManifestSetState {
  readonly dirs: readonly ManifestDirState[];
  readonly generation: number;
}

/**
 * Keeps the directories' states current: reads them at once, then again whenever a file in one
 * changes (fs.watch on the directory; the apiserver does the same with fsnotify). Listeners hear
 * of every new state.
 */
export class ManifestWatcher {
  #dirs: ManifestDirState[];
  #generation = 0;
  readonly #specs: readonly ManifestDirSpec[];
  readonly #watchers: FSWatcher[] = [];
  readonly #listeners = new Set<(s: ManifestSetState) => void>();
  readonly #pending = new Map<number, NodeJS.Timeout>();

  constructor(specs: readonly ManifestDirSpec[]) {
    this.#specs = specs;
    this.#dirs = specs.map((s) => readManifestDir(s));
    specs.forEach((spec, i) => {
      try {
        const w = watch(spec.dir, { persistent: false }, () => this.#schedule(i));
        w.on("error", () => this.#schedule(i));
        this.#watchers.push(w);
      } catch {
        // A directory that cannot be watched (absent) stays as read, its error shown.
      }
    });
  }

  /** Several events arrive for one write: they are read once, on the next turn of the loop. */
  #schedule(i: number): void {
    if (this.#pending.has(i)) return;
    this.#pending.set(
      i,
      setTimeout(() => {
        this.#pending.delete(i);
        this.reread(i);
      }, 0),
    );
  }

  /** Re-reads directory `i` now (or all of them) and tells the listeners when anything changed. */
  reread(i?: number): void {
    const indexes = i === undefined ? this.#specs.map((_, k) => k) : [i];
    let changed = false;
    for (const k of indexes) {
      const spec = this.#specs[k];
      const prev = this.#dirs[k];
      if (!spec || !prev) continue;
      const next = readManifestDir(spec, prev);
      if (next.hash !== prev.hash || next.error !== prev.error || next.plugin !== prev.plugin) {
        this.#dirs[k] = next;
        changed = true;
      }
    }
    if (!changed) return;
    this.#generation++;
    const s = this.state();
    for (const l of this.#listeners) l(s);
  }

  state(): ManifestSetState {
    return { dirs: [...this.#dirs], generation: this.#generation };
  }

  /** The objects in force, for a snapshot. */
  objects(): ManifestObjects {
    return manifestObjectsOf(this.#dirs);
  }

  /** Calls `listener` on every change; returns the unsubscribe. */
  subscribe(listener: (s: ManifestSetState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    for (const w of this.#watchers) w.close();
    for (const t of this.#pending.values()) clearTimeout(t);
    this.#pending.clear();
    this.#listeners.clear();
  }
}

/** The variable naming the dashboard's manifest directories. */
const MANIFESTS_ENV = "PORTCULLIS_ADMISSION_MANIFESTS";

const WATCHER_KEY = Symbol.for("portcullis.admission-manifests.watcher");

/**
 * The dashboard's watcher of the directories PORTCULLIS_ADMISSION_MANIFESTS names (one per
 * process, started on first use); undefined when the variable is unset or empty.
 */
export function manifestWatcherFromEnv(): ManifestWatcher | undefined {
  const g = globalThis as { [WATCHER_KEY]?: ManifestWatcher | null };
  const known = g[WATCHER_KEY];
  if (known !== undefined) return known ?? undefined;
  const specs = parseManifestDirList(process.env[MANIFESTS_ENV] ?? "");
  const w = specs.length > 0 ? new ManifestWatcher(specs) : null;
  g[WATCHER_KEY] = w;
  return w ?? undefined;
}

/** What a snapshot reader is told of the directories: the errors, each a notice. */
export function manifestNotices(dirs: readonly ManifestDirState[]): string[] {
  return dirs.flatMap((d) =>
    d.error === undefined
      ? []
      : [
          `manifest directory ${d.dir}${d.plugin ? ` (${d.plugin})` : ""} does not load: ${d.error}; ${
            d.objects.length > 0 || d.hash !== ""
              ? "the set read before stays in force, as the apiserver keeps it on a reload"
              : "no static object is known from it"
          }`,
        ],
  );
}
