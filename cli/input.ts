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
  /**
   * The first byte go-yaml's reader refuses (invalid UTF-8, a control character), at its index
   * in `text`: kubectl turns YAML into JSON with go-yaml, so the document holding it never
   * reaches the apiserver. Unset for JSON streams (kubectl decodes them as JSON) and clean text.
   */
  readerError?: { index: number; message: string };
}

// go-yaml v2's reader (readerc.go): the characters YAML allows, and its messages.
function allowedChar(c: number): boolean {
  return (
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d ||
    (c >= 0x20 && c <= 0x7e) ||
    c === 0x85 ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

/** The first byte go-yaml's UTF-8 reader refuses in `b`: its offset and go-yaml's message. */
export function yamlReaderError(b: Uint8Array): { offset: number; message: string } | undefined {
  // A UTF-8 byte order mark is read and dropped.
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (i < b.length) {
    const lead = b[i]!;
    const width =
      (lead & 0x80) === 0
        ? 1
        : (lead & 0xe0) === 0xc0
          ? 2
          : (lead & 0xf0) === 0xe0
            ? 3
            : (lead & 0xf8) === 0xf0
              ? 4
              : 0;
    if (width === 0) return { offset: i, message: "yaml: invalid leading UTF-8 octet" };
    if (i + width > b.length)
      return { offset: i, message: "yaml: incomplete UTF-8 octet sequence" };
    let value =
      width === 1 ? lead : width === 2 ? lead & 0x1f : width === 3 ? lead & 0x0f : lead & 0x07;
    for (let k = 1; k < width; k++) {
      const o = b[i + k]!;
      if ((o & 0xc0) !== 0x80)
        return { offset: i + k, message: "yaml: invalid trailing UTF-8 octet" };
      value = (value << 6) + (o & 0x3f);
    }
    const minimum = [0, 0, 0x80, 0x800, 0x10000][width]!;
    if (value < minimum) return { offset: i, message: "yaml: invalid length of a UTF-8 sequence" };
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff)
      return { offset: i, message: "yaml: invalid Unicode character" };
    if (!allowedChar(value))
      return { offset: i, message: "yaml: control characters are not allowed" };
    i += width;
  }
  return undefined;
}

// kubectl reads a stream whose first non-space character is `{` as JSON (IsJSONBuffer).
const JSON_STREAM = /^[\s\ufeff]*\{/;

/** Text from bytes, with go-yaml's first refusal placed in the decoded text. */
export function sourceFromBytes(name: string, b: Buffer): SourceText {
  const text = b.toString("utf8");
  if (JSON_STREAM.test(text)) return { name, text };
  const e = yamlReaderError(b);
  if (!e) return { name, text };
  return {
    name,
    text,
    readerError: { index: b.subarray(0, e.offset).toString("utf8").length, message: e.message },
  };
}

/**
 * The most the command line reads from one input (a file or stdin), over all its documents. Each
 * document is still held to the apiserver's 3 MiB request limit on its own; this bounds the work
 * one input can ask for (reading, parsing, the alias budget counted across its documents).
 */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

function tooLarge(name: string): InputError {
  return new InputError(
    `${name} is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB, the most read from one input (each document is limited to 3 MiB)`,
  );
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
function manifestFiles(p: string): string[] {
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

/** Reads one file as UTF-8 (noting what go-yaml would refuse in it). */
export function readText(file: string): SourceText {
  let bytes: Buffer;
  try {
    if (statSync(file).size > MAX_INPUT_BYTES) throw tooLarge(file);
    bytes = readFileSync(file);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read ${file}: ${describe(e)}`);
  }
  // A file that grew between the two looks.
  if (bytes.length > MAX_INPUT_BYTES) throw tooLarge(file);
  return sourceFromBytes(file, bytes);
}

/** Reads stdin to the end. */
export async function readStdin(
  stream: NodeJS.ReadableStream = process.stdin,
): Promise<SourceText> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = typeof c === "string" ? Buffer.from(c) : c;
    size += b.length;
    // Stops reading at the limit instead of holding all of an endless stream.
    if (size > MAX_INPUT_BYTES) throw tooLarge("<stdin>");
    chunks.push(b);
  }
  return sourceFromBytes("<stdin>", Buffer.concat(chunks));
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
