/**
 * The events' texts, packed: the texts of a batch's events whose first decisions have
 * consecutive ids share an admission_events row, keyed by the first of those ids, compressed.
 */
import "server-only";
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from "node:zlib";
import type { ItemBytes, ParsedAuditEvent } from "@/lib/admission/audit/audit";

/** Where each text of a packed row starts: it holds RS + the texts joined by RS (see packRow). */
const RS = 0x1e;

/**
 * The texts at `offsets` (from the row's id) of an admission_events row, by offset, from its
 * packed bytes (decompressed; only the texts asked for are copied out). None from bytes that do
 * not decompress.
 */
export function rowTexts(row: Uint8Array, offsets: ReadonlySet<number>): Map<number, string> {
  const out = new Map<number, string>();
  let bytes: Buffer;
  try {
    bytes = brotliDecompressSync(row);
  } catch {
    // A damaged row: its events are listed from their decision rows, without their texts.
    return out;
  }
  const last = Math.max(...offsets);
  for (let k = 0, at = 0; k <= last && at >= 0 && at < bytes.length; k++) {
    const next = bytes.indexOf(RS, at + 1);
    if (offsets.has(k)) out.set(k, bytes.toString("utf8", at + 1, next < 0 ? bytes.length : next));
    at = next;
  }
  return out;
}

/**
 * Most bytes of event texts (uncompressed) in one packed row: a whole batch of the apiserver's
 * (400 events of about 1 KB) fits, and reading one event decompresses at most this much.
 * Storing 200,000 recorded events one batch of 400 a commit, packing took SQLite's WAL from 1.9 KB
 * a stored event to 0.75 KB, its checkpoints from 1.0 KB to 0.3 KB, and the database for 1,000,000
 * decisions from 1,212 MB to 290 MB; PostgreSQL, which compressed long texts itself (on the
 * server, slowly), ingests a fifth more a second. Copying each text from the body's own bytes
 * spares encoding every string again.
 */
export const PACKED_ROW_BYTES = 512 * 1024;

/**
 * Brotli at its fastest quality, with a window (1 MB) over a whole row, so what events of a batch
 * repeat of each other is found; measured on batches recorded from the apiserver: about 0.2 ms
 * for a 400-event batch, compressed to 3–8 % of its size.
 */
const packOptions = (bytes: number) => ({
  params: {
    [zlibConstants.BROTLI_PARAM_QUALITY]: 0,
    [zlibConstants.BROTLI_PARAM_LGWIN]: 20,
    // Told the input's size, the encoder sizes its tables to it: about 15 % faster on a batch.
    [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes,
  },
});

/** Where an event's text is in the bytes it came with, or -1 (then it is encoded from `raw`). */
function sourceStart(e: ParsedAuditEvent): number {
  return e.rawItem === undefined || !e.rawSource ? -1 : e.rawSource.start(e.rawItem);
}

/**
 * Rows of admission_events for events stored in this order with these first-decision ids, their
 * texts packed (see packRow): a row ends where the ids stop being consecutive or
 * PACKED_ROW_BYTES would be exceeded (a longer text gets a row of its own).
 */
export function packedTextRows(
  ids: number[],
  events: ParsedAuditEvent[],
): Array<[number, Uint8Array]> {
  const n = events.length;
  const starts = events.map(sourceStart);
  const sizes = events.map((e, i) => {
    const start = starts[i] as number;
    return start < 0
      ? Buffer.byteLength(e.raw, "utf8")
      : (e.rawSource as ItemBytes).end(e.rawItem as number, e.raw) - start;
  });
  const rows: Array<[number, Uint8Array]> = [];
  let from = 0;
  while (from < n) {
    let to = from + 1;
    let bytes = 1 + (sizes[from] as number);
    while (
      to < n &&
      ids[to] === (ids[from] as number) + (to - from) &&
      bytes + 1 + (sizes[to] as number) <= PACKED_ROW_BYTES
    )
      bytes += 1 + (sizes[to++] as number);
    const row = packRow(
      events.slice(from, to),
      starts.slice(from, to),
      sizes.slice(from, to),
      bytes,
    );
    rows.push([ids[from] as number, brotliCompressSync(row, packOptions(row.length))]);
    from = to;
  }
  return rows;
}

let packScratch = Buffer.alloc(0);

/**
 * RS + the events' texts joined by RS, `bytes` long: each text copied from the bytes it came
 * with where it has them (neighbouring items of a body at once: what separates them becomes the
 * RS), else encoded. No JSON text holds the byte RS (0x1E, a control character JSON allows only
 * escaped, and which UTF-8 never uses inside another character), so nothing else splits a row.
 * The bytes are a view of a buffer the next call reuses.
 */
function packRow(
  events: ParsedAuditEvent[],
  starts: number[],
  sizes: number[],
  bytes: number,
): Buffer {
  // One buffer for every row, as only the compressed copy is kept.
  if (packScratch.length < bytes)
    packScratch = Buffer.allocUnsafe(Math.max(bytes, PACKED_ROW_BYTES));
  const out = packScratch.subarray(0, bytes);
  let run: { source: Uint8Array; start: number; end: number; at: number } | undefined;
  const copy = () => {
    if (run) {
      const { source, start, end, at } = run;
      out.set(new Uint8Array(source.buffer, source.byteOffset + start, end - start), at);
    }
    run = undefined;
  };
  let at = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as ParsedAuditEvent;
    const start = starts[i] as number;
    const size = sizes[i] as number;
    if (start < 0) {
      copy();
      // (A text holding RS is not JSON, but must not be split: its RS become spaces.)
      const text = out.subarray(at + 1, at + 1 + out.write(e.raw, at + 1, "utf8"));
      for (let k = text.indexOf(RS); k >= 0; k = text.indexOf(RS, k + 1)) text[k] = 0x20;
    } else {
      const source = (e.rawSource as ItemBytes).bytes;
      if (run?.source === source && run.end + 1 === start) run.end = start + size;
      else {
        copy();
        run = { source, start, end: start + size, at: at + 1 };
      }
    }
    at += 1 + size;
  }
  copy();
  // The separators last: a run's copy put what stood between its items where they go.
  at = 0;
  for (const size of sizes) {
    out[at] = RS;
    at += 1 + size;
  }
  return out;
}
