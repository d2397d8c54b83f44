/**
 * Reads an audit EventList body (the text the apiserver's audit webhook posts) into decisions,
 * keeping each event's own JSON text as its raw event so storing it costs no re-serialisation
 * (that serialisation was a third of the ingestion cost).
 *
 * Where each item of the top-level `items` array starts and ends is found by the seam the
 * apiserver's encoder leaves between items, else by a linear scanner; every item is then
 * JSON.parse'd from its own text, and the envelope from the body with the items cut out, so the
 * result is exactly what JSON.parse of the whole body gives. Anything unexpected (no plain
 * `"items"` key, stray characters) falls back to parsing the whole body. Strings are skipped with
 * indexOf; no regular expression runs over the body.
 */
import { parseAuditEvent, parseEventList, type ItemBytes, type ParsedAuditEvent } from "./audit";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function skipSpace(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** `i` at an opening quote: the index just past the closing one, or -1. */
function skipString(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return -1;
    let k = q - 1;
    while (s.charCodeAt(k) === BACKSLASH) k--;
    // An even run of backslashes escapes only itself: this quote closes the string.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** `i` at the start of a value: the index just past it, or -1 (brackets counted, no recursion). */
function skipValue(s: string, i: number): number {
  const n = s.length;
  let depth = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(s, i);
      if (i < 0) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return i; // the end of a bare number, true, false or null
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === COMMA || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09))
      return i;
    i++;
  }
  return depth === 0 ? i : -1;
}

interface ItemSpans {
  /** Where the `items` array value starts and ends in the body. */
  start: number;
  end: number;
  /** [start, end) of each item. */
  items: Array<[number, number]>;
}

/**
 * Where the apiserver's encoder starts every item but the first: `},{"kind":"Event"`. This text
 * cannot occur inside a JSON string (its quote would end the string, and `kind` cannot follow a
 * string), so it only splits where objects meet — possibly inside an item, in which case a piece
 * does not parse and the general scanner is used instead.
 */
const ITEM_SEAM = '},{"kind":"Event"';
const SEAM_BYTES = Buffer.from(ITEM_SEAM);

/** Whether `bytes` hold SEAM_BYTES at `at`. */
function seamAt(bytes: Uint8Array, at: number): boolean {
  if (at < 0 || at + SEAM_BYTES.length > bytes.length) return false;
  for (let i = 0; i < SEAM_BYTES.length; i++) if (bytes[at + i] !== SEAM_BYTES[i]) return false;
  return true;
}

/**
 * The spans of the top-level `items` array and its elements, or undefined if unexpected. `seams`
 * finds items by ITEM_SEAM (fast; the caller must fall back to the general scanner when a piece
 * does not parse); otherwise every item is scanned.
 */
export function eventListItemSpans(s: string, seams = false): ItemSpans | undefined {
  let i = skipSpace(s, 0);
  if (s.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(s, i + 1);
  let found: ItemSpans | undefined;
  if (s.charCodeAt(i) === CLOSE_BRACE) return undefined;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(s, i);
    if (keyEnd < 0) return undefined;
    const isItems = keyEnd - i === 7 && s.startsWith('"items"', i);
    i = skipSpace(s, keyEnd);
    if (s.charCodeAt(i) !== COLON) return undefined;
    i = skipSpace(s, i + 1);
    if (isItems && s.charCodeAt(i) === OPEN_BRACKET) {
      const spans = seams ? seamSpans(s, i) : arraySpans(s, i);
      if (!spans) return undefined;
      found = spans;
      i = spans.end;
    } else {
      const end = skipValue(s, i);
      if (end <= i) return undefined;
      i = end;
    }
    i = skipSpace(s, i);
    const c = s.charCodeAt(i);
    if (c === COMMA) i = skipSpace(s, i + 1);
    else if (c === CLOSE_BRACE) break;
    else return undefined;
  }
  return skipSpace(s, i + 1) === s.length ? found : undefined;
}

function seamSpans(s: string, open: number): ItemSpans | undefined {
  const first = skipSpace(s, open + 1);
  if (s.charCodeAt(first) === CLOSE_BRACKET) return { start: open, end: first + 1, items: [] };
  const starts = [first];
  for (let at = s.indexOf(ITEM_SEAM, first); at >= 0; at = s.indexOf(ITEM_SEAM, at + 2))
    starts.push(at + 2);
  const last = starts[starts.length - 1] as number;
  const end = skipValue(s, last);
  if (end <= last) return undefined;
  const close = skipSpace(s, end);
  if (s.charCodeAt(close) !== CLOSE_BRACKET) return undefined;
  const items = starts.map((a, k): [number, number] => [
    a,
    k + 1 < starts.length ? (starts[k + 1] as number) - 1 : end,
  ]);
  return { start: open, end: close + 1, items };
}

function arraySpans(s: string, open: number): ItemSpans | undefined {
  const items: Array<[number, number]> = [];
  let i = skipSpace(s, open + 1);
  if (s.charCodeAt(i) === CLOSE_BRACKET) return { start: open, end: i + 1, items };
  for (;;) {
    const end = skipValue(s, i);
    if (end <= i) return undefined;
    items.push([i, end]);
    i = skipSpace(s, end);
    const c = s.charCodeAt(i);
    if (c === COMMA) i = skipSpace(s, i + 1);
    else if (c === CLOSE_BRACKET) return { start: open, end: i + 1, items };
    else return undefined;
  }
}

/**
 * Every event of an EventList body that records at least one admission decision, each with its
 * own text as the raw event (unless redacted). Throws a SyntaxError for text that is not JSON and
 * a plain Error for JSON that is not an EventList, as parseEventList(JSON.parse(text)) does.
 * `bytes`, when given, are the UTF-8 bytes `text` was decoded from: each event keeping its own
 * text is told where that text is in them (see parseEventListBody).
 */
export function parseEventListText(text: string, bytes?: Uint8Array): ParsedAuditEvent[] {
  const fast = eventListItemSpans(text, true);
  if (fast) {
    try {
      return parseItems(text, fast, bytes && new EventListBytes(bytes, text, fast, true));
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      // A seam inside an item, or not JSON at all: the general scanner tells which.
    }
  }
  const spans = eventListItemSpans(text);
  return spans
    ? parseItems(text, spans, bytes && new EventListBytes(bytes, text, spans, false))
    : parseEventList(JSON.parse(text));
}

/** parseEventListText of a body as the apiserver sends it: UTF-8 bytes. */
export function parseEventListBody(bytes: Uint8Array): ParsedAuditEvent[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return parseEventListText(text, bytes);
}

/**
 * The bytes of an EventList body and where its items are in them, found when first asked: at the
 * same offsets as in the text when the text is as long as the bytes (UTF-8 decoding never yields
 * more characters than bytes, so then every character is one byte); else, for items found by
 * ITEM_SEAM, by the same seams in the bytes (ASCII, which no multi-byte character contains, so the
 * bytes hold them in the same order); else not at all.
 */
class EventListBytes implements ItemBytes {
  private starts?: number[] | null;

  constructor(
    readonly bytes: Uint8Array,
    private readonly text: string,
    private readonly spans: ItemSpans,
    private readonly bySeams: boolean,
  ) {}

  start(k: number): number {
    if (this.text.length === this.bytes.length) return this.spans.items[k]?.[0] ?? -1;
    return this.byteStarts()?.[k] ?? -1;
  }

  end(k: number, text: string): number {
    if (this.text.length === this.bytes.length) return this.spans.items[k]?.[1] ?? -1;
    const starts = this.byteStarts();
    const start = starts?.[k];
    if (starts === undefined || start === undefined) return -1;
    // An item ends just before the comma of the next one's seam; the last one, where its text does.
    return k + 1 < starts.length
      ? (starts[k + 1] as number) - 1
      : start + Buffer.byteLength(text, "utf8");
  }

  private byteStarts(): number[] | undefined {
    if (this.starts === undefined) this.starts = this.findStarts();
    return this.starts ?? undefined;
  }

  private findStarts(): number[] | null {
    const first = this.spans.items[0];
    if (!this.bySeams || !first) return null;
    const buf = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    const items = this.spans.items;
    const starts = [Buffer.byteLength(this.text.slice(0, first[0]), "utf8")];
    // Item k starts in the bytes at its offset in the text plus the extra bytes of the multi-byte
    // characters before it: at least as many as before item k - 1, so its seam is the first one
    // from there (found at once unless item k - 1 holds such characters).
    for (let k = 1; k < items.length; k++) {
      const prev = starts[k - 1] as number;
      const extra = prev - (items[k - 1] as [number, number])[0];
      const from = (items[k] as [number, number])[0] + extra - 2;
      // Where it is when item k - 1 holds no such characters: compared in place, sparing a call
      // of indexOf per item.
      const at = seamAt(buf, from) ? from : buf.indexOf(SEAM_BYTES, from);
      if (at < prev) return null;
      starts.push(at + 2);
    }
    return starts;
  }
}

function parseItems(text: string, spans: ItemSpans, bytes?: ItemBytes): ParsedAuditEvent[] {
  // The envelope with its items cut out: valid JSON exactly when the whole body is (every item
  // is parsed below), and its `items` must be the array found, or another key shadowed it.
  const envelope = JSON.parse(`${text.slice(0, spans.start)}[]${text.slice(spans.end)}`) as {
    items?: unknown[];
  };
  parseEventList(envelope); // throws for anything but an EventList
  if (envelope.items?.length !== 0) return parseEventList(JSON.parse(text));
  // Every item is parsed before any is read: a body that is not JSON fails as a whole.
  const values = spans.items.map(([a, b]) => JSON.parse(text.slice(a, b)) as unknown);
  const out: ParsedAuditEvent[] = [];
  values.forEach((v, k) => {
    const [a, b] = spans.items[k] as [number, number];
    const source = text.slice(a, b);
    const p = parseAuditEvent(v, source);
    if (p && p.decisions.length > 0) {
      // The sender's own text (not a redacted one): where it is in the bytes, if they hold it.
      if (bytes && p.raw === source) {
        p.rawSource = bytes;
        p.rawItem = k;
      }
      out.push(p);
    }
  });
  return out;
}
