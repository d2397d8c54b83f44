/**
 * Heap snapshots of a replica (`--heap`: the replicas run with `--heapsnapshot-signal=SIGUSR2`),
 * and what grew between two of them: a snapshot holds only what a full collection left alive, so
 * growth there is memory the process keeps (a map keyed by stream or session that never shrinks),
 * while RSS growth with a flat snapshot is the heap settling (V8 keeps pages it has grown into).
 */
import { existsSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import path from "node:path";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Asks `pid` for a snapshot and waits until it is written; moves it to `dir`. */
export async function takeHeapSnapshot(
  pid: number,
  cwd: string,
  dir: string,
  label: string,
): Promise<string> {
  const mine = () =>
    readdirSync(cwd).filter((f) => f.endsWith(".heapsnapshot") && f.includes(`.${pid}.`));
  const before = new Set(mine());
  process.kill(pid, "SIGUSR2");
  const until = Date.now() + 120_000;
  let file: string | undefined;
  while (Date.now() < until && !file) {
    await sleep(250);
    file = mine().find((f) => !before.has(f));
  }
  if (!file) throw new Error(`no heap snapshot from ${pid} in 2 minutes`);
  const full = path.join(cwd, file);
  // Written in pieces: done when its size holds still.
  let size = -1;
  while (Date.now() < until) {
    const now = statSync(full).size;
    if (now === size && now > 0) break;
    size = now;
    await sleep(1000);
  }
  const out = path.join(dir, `${label}-${pid}.heapsnapshot`);
  renameSync(full, out);
  return out;
}

export interface HeapSummary {
  totalBytes: number;
  nodes: number;
  /** Self size and count by "type:name" (a constructor's objects, a closure's name, strings…). */
  byName: Map<string, { bytes: number; count: number }>;
}

export function summariseHeap(file: string): HeapSummary {
  if (!existsSync(file)) throw new Error(`${file}: missing`);
  const snap = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const iType = fields.indexOf("type");
  const iName = fields.indexOf("name");
  const iSize = fields.indexOf("self_size");
  const byName = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType] as number] ?? "?";
    const bytes = snap.nodes[i + iSize] as number;
    total += bytes;
    // Strings and numbers by their type alone: their "names" are their contents.
    const name =
      type === "object" || type === "closure" || type === "native"
        ? `${type}:${snap.strings[snap.nodes[i + iName] as number] ?? "?"}`
        : type;
    const e = byName.get(name) ?? { bytes: 0, count: 0 };
    e.bytes += bytes;
    e.count++;
    byName.set(name, e);
  }
  return { totalBytes: total, nodes: snap.nodes.length / width, byName };
}

/** The `n` names that grew most in bytes from `a` to `b`. */
export function heapGrowth(
  a: HeapSummary,
  b: HeapSummary,
  n = 8,
): Array<{ name: string; bytes: number; count: number }> {
  const names = new Set([...a.byName.keys(), ...b.byName.keys()]);
  return [...names]
    .map((name) => {
      const x = a.byName.get(name) ?? { bytes: 0, count: 0 };
      const y = b.byName.get(name) ?? { bytes: 0, count: 0 };
      return { name, bytes: y.bytes - x.bytes, count: y.count - x.count };
    })
    .sort((p, q) => q.bytes - p.bytes)
    .slice(0, n);
}
