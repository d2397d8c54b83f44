/**
 * Reading manifests: files, directories (recursively, *.yaml, *.yml, *.json, in name order so
 * output is stable) and `-` for stdin. Every failure is an InputError naming the path.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { InputError } from "./errors";

/** One source text and the name used for it in messages (`-` reads as `<stdin>`). */
export interface SourceText {
  name: string;
  text: string;
}

const MANIFEST = /\.(ya?ml|json)$/i;

function describe(e: unknown): string {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return e instanceof Error ? e.message : String(e);
}

function walk(dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new InputError(`cannot read directory ${dir}: ${describe(e)}`);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const ent of entries) {
    if (ent.name.startsWith(".")) continue;
    const p = path.join(dir, ent.name);
    if (ent.isDirectory()) walk(p, out);
    else if (MANIFEST.test(ent.name)) out.push(p);
  }
}

/** The manifest files a path names: itself, or the manifests under a directory. */
export function manifestFiles(p: string): string[] {
  let st;
  try {
    st = statSync(p);
  } catch (e) {
    throw new InputError(`cannot read ${p}: ${describe(e)}`);
  }
  if (!st.isDirectory()) return [p];
  const out: string[] = [];
  walk(p, out);
  if (out.length === 0) throw new InputError(`${p} holds no *.yaml, *.yml or *.json files`);
  return out;
}

/** Reads one file as UTF-8. */
export function readText(file: string): SourceText {
  try {
    return { name: file, text: readFileSync(file, "utf8") };
  } catch (e) {
    throw new InputError(`cannot read ${file}: ${describe(e)}`);
  }
}

/** Reads stdin to the end. */
export async function readStdin(
  stream: NodeJS.ReadableStream = process.stdin,
): Promise<SourceText> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === "string" ? Buffer.from(c) : c);
  return { name: "<stdin>", text: Buffer.concat(chunks).toString("utf8") };
}

/** Reads every input (files, directories, `-`) in the order given. */
export async function readInputs(inputs: readonly string[]): Promise<SourceText[]> {
  const out: SourceText[] = [];
  for (const input of inputs) {
    if (input === "-") out.push(await readStdin());
    else for (const f of manifestFiles(input)) out.push(readText(f));
  }
  return out;
}
