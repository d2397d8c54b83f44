/**
 * From manifest text to Kubernetes objects: multi-document YAML/JSON, `kind: List` flattened,
 * every object remembering where it came from (file, document, line) so messages can point at it.
 */
import type { SourceRange } from "@/lib/admission/validate/issue";
import type { JsonObject, JsonValue } from "@/lib/admission/validate/json";
import { arr, isObject, obj, str } from "@/lib/admission/validate/json";
import type { DuplicateKey, ParsedDocument } from "@/lib/admission/validate/source-map";
import { maxRequestBytes, parseDocuments } from "@/lib/admission/validate/source-map";
import type { Node } from "yaml";
import { Composer, isAlias, isMap, isPair, isSeq, Parser } from "yaml";
import type { SourceText } from "./input";

/**
 * Nodes one input (a file, stdin) may reach through aliases, over all its documents together.
 * The YAML reader's own budget (lib/admission/validate/source-map.ts) is per document, so a file
 * of many documents, each just under it, multiplied it: 300 such documents in 96 KB took over a
 * minute and hundreds of MB. Real manifests alias little or nothing.
 */
export const MAX_ALIAS_NODES_PER_INPUT = 100_000;

/** The one message for an input over MAX_ALIAS_NODES_PER_INPUT. */
export const EXCESSIVE_ALIASING =
  "yaml: document contains excessive aliasing (over all the documents of this input)";

/**
 * How many nodes reading `text` would reach through aliases, over all its documents, stopping
 * once past `limit`. Counted on the parsed tree without expanding anything: a node's expanded
 * size is remembered, so the count costs one pass however large the expansion is.
 */
export function aliasNodesOf(text: string, limit = MAX_ALIAS_NODES_PER_INPUT): number {
  // No `*` anywhere: no alias either (the common case costs one scan of the text).
  if (!text.includes("*")) return 0;
  // Documents one at a time (Parser and Composer are generators): a bomb stops being read at
  // the document that takes it over the budget.
  const docs = new Composer({
    version: "1.1",
    schema: "failsafe",
    resolveKnownTags: false,
    merge: false,
    uniqueKeys: false,
  }).compose(new Parser().parse(text), true);
  let total = 0;
  try {
    for (const doc of docs) {
      const sizes = new Map<Node, number>();
      // Nodes the walk of `node` visits, aliases expanded (each alias one node more).
      const size = (node: unknown, depth: number): number => {
        if (!node || typeof node !== "object" || depth > 600) return 1;
        const n = node as Node;
        const known = sizes.get(n);
        if (known !== undefined) return known;
        sizes.set(n, 1); // a cycle through an anchor counts once; the reader refuses it
        let out = 1;
        if (isAlias(n)) out += size(n.resolve(doc), depth + 1);
        else if (isSeq(n)) for (const it of n.items) out += size(it, depth + 1);
        else if (isMap(n))
          // A mapping's keys are read as keys, not walked: its values are.
          for (const p of n.items) if (isPair(p)) out += size(p.value, depth + 1);
        out = Math.min(out, Number.MAX_SAFE_INTEGER);
        sizes.set(n, out);
        return out;
      };
      // The aliases written in the text: each reaches itself and everything its target expands to.
      const visit = (node: unknown, depth: number): void => {
        if (total > limit || !node || typeof node !== "object" || depth > 600) return;
        const n = node as Node;
        if (isAlias(n)) total += size(n, depth);
        else if (isSeq(n)) for (const it of n.items) visit(it, depth + 1);
        else if (isMap(n))
          for (const p of n.items)
            if (isPair(p)) {
              visit(p.key, depth + 1);
              visit(p.value, depth + 1);
            }
      };
      visit(doc.contents, 0);
      if (total > limit) break;
    }
  } catch {
    // The reader reports what it cannot parse.
  }
  return total;
}

/** Where an object sits: `file`, the document's 0-based index, and the List item if any. */
export interface Origin {
  source: string;
  document: number;
  /** Index in a `kind: List`'s items. */
  item: number | undefined;
  /** 1-based line of the object's first token (0 when the object did not come from text). */
  line: number;
  /** Position in the order everything was read (files, then documents, then items). */
  seq: number;
}

/** One object read from text. */
export interface SourceObject {
  origin: Origin;
  value: JsonValue;
  /** Range of a field path inside this object (the object's own range when unknown). */
  rangeOf(segments: readonly (string | number)[], prefer?: "value" | "key"): SourceRange;
  /** Duplicate keys inside this object, relative to it. */
  duplicates: DuplicateKey[];
}

/** A document the YAML parser could not read. */
export interface SourceProblem {
  origin: Origin;
  message: string;
  range: SourceRange;
}

/** Everything read from some sources. */
export interface ReadDocuments {
  objects: SourceObject[];
  problems: SourceProblem[];
  /** Next `seq`. */
  seq: number;
}

/**
 * kubectl reads any object with an `items` array as a list (unstructured decodeToList): `v1 List`
 * as `kubectl get -o yaml` writes it, and typed lists such as a
 * ValidatingWebhookConfigurationList read straight from the API.
 */
function isListKind(v: JsonValue): v is JsonObject {
  // `items: null` too: encoding/json hands the detector's RawMessage the text "null".
  return isObject(v) && (Array.isArray(v["items"]) || v["items"] === null);
}

/**
 * A typed list's items carry no apiVersion and kind of their own (the apiserver leaves them out);
 * kubectl gives an item that has neither the list's apiVersion and its kind without `List`.
 */
function listItem(list: JsonObject, item: JsonValue): JsonValue {
  if (!isObject(item) || "apiVersion" in item || "kind" in item) return item;
  const kind = str(list, "kind").replace(/List$/, "");
  const apiVersion = str(list, "apiVersion");
  if (kind === "" && apiVersion === "") return item;
  return { apiVersion, kind, ...item };
}

function fromDocument(source: string, doc: ParsedDocument, out: ReadDocuments): void {
  // The object's first token, not the `---` that opens its document.
  const line = doc.rangeOf([]).startLine;
  if (doc.problems.length > 0) {
    for (const p of doc.problems)
      out.problems.push({
        origin: {
          source,
          document: doc.index,
          item: undefined,
          line: p.range.startLine,
          seq: out.seq++,
        },
        message: p.message,
        range: p.range,
      });
    return;
  }
  if (doc.value === null) return;
  if (!isListKind(doc.value)) {
    out.objects.push({
      origin: { source, document: doc.index, item: undefined, line, seq: out.seq++ },
      value: doc.value,
      rangeOf: (s, prefer) => doc.rangeOf(s, prefer),
      duplicates: doc.duplicates,
    });
    return;
  }
  const list = doc.value;
  (arr(list, "items") ?? []).forEach((raw, item) => {
    const value = listItem(list, raw);
    const prefix = ["items", item];
    const under = (d: DuplicateKey) => d.segments[0] === "items" && d.segments[1] === item;
    out.objects.push({
      origin: {
        source,
        document: doc.index,
        item,
        line: doc.rangeOf(prefix).startLine,
        seq: out.seq++,
      },
      value,
      rangeOf: (s, prefer) => doc.rangeOf([...prefix, ...s], prefer),
      duplicates: doc.duplicates
        .filter(under)
        .map((d) => ({ segments: d.segments.slice(2), range: d.range })),
    });
  });
}

const shiftRange = (r: SourceRange, lines: number): SourceRange => ({
  ...r,
  startLine: r.startLine + lines,
  endLine: r.endLine + lines,
});

/** A document parsed from a piece of a text, placed back in the whole text. */
function shifted(d: ParsedDocument, lines: number, index: number): ParsedDocument {
  if (lines === 0 && index === d.index) return d;
  return {
    ...d,
    index,
    problems: d.problems.map((p) => ({ ...p, range: shiftRange(p.range, lines) })),
    duplicates: d.duplicates.map((x) => ({ ...x, range: shiftRange(x.range, lines) })),
    rangeOf: (s, prefer) => shiftRange(d.rangeOf(s, prefer), lines),
    docRange: shiftRange(d.docRange, lines),
  };
}

/**
 * The documents of a text, each as its own request, as kubectl sends them: the apiserver's body
 * limit holds per document, so a long multi-document file is not one request too large. A text
 * under the limit is parsed whole; a longer one is cut where kubectl's YAMLReader cuts it (a line
 * `---`, optionally followed by a comment).
 */
function documentsOf(text: string): ParsedDocument[] {
  if (
    text.length <= maxRequestBytes / 4 ||
    new TextEncoder().encode(text).length <= maxRequestBytes
  )
    return parseDocuments(text);
  const out: ParsedDocument[] = [];
  const lines = text.split("\n");
  let start = 0;
  const flush = (end: number) => {
    const piece = lines.slice(start, end).join("\n");
    for (const d of parseDocuments(piece)) out.push(shifted(d, start, out.length));
  };
  lines.forEach((line, i) => {
    if (i > 0 && /^---\s*(#.*)?\r?$/.test(line)) {
      flush(i);
      start = i;
    }
  });
  flush(lines.length);
  return out;
}

/**
 * Parses every source; empty documents are dropped, list items are objects of their own. A
 * document holding a byte go-yaml refuses is that refusal, as kubectl reports it.
 */
export function readDocuments(sources: readonly SourceText[]): ReadDocuments {
  const out: ReadDocuments = { objects: [], problems: [], seq: 0 };
  for (const s of sources) {
    if (aliasNodesOf(s.text) > MAX_ALIAS_NODES_PER_INPUT) {
      const range: SourceRange = { startLine: 1, startCol: 1, endLine: 1, endCol: 2 };
      out.problems.push({
        origin: { source: s.name, document: 0, item: undefined, line: 1, seq: out.seq++ },
        message: EXCESSIVE_ALIASING,
        range,
      });
      continue;
    }
    const docs = documentsOf(s.text);
    const bad = s.readerError;
    if (bad) {
      const before = s.text.slice(0, bad.index).split("\n");
      const line = before.length;
      const col = (before[before.length - 1]?.length ?? 0) + 1;
      const range: SourceRange = { startLine: line, startCol: col, endLine: line, endCol: col + 1 };
      // The document the byte sits in: the last one starting at or before its line.
      let at = 0;
      docs.forEach((d, i) => {
        if (d.docRange.startLine <= line) at = i;
      });
      const d = docs[at];
      const problem = { message: bad.message, range, decode: true };
      if (d) docs[at] = { ...d, value: null, problems: [problem], duplicates: [] };
      else
        docs.push({
          index: 0,
          value: null,
          problems: [problem],
          duplicates: [],
          rangeOf: () => range,
          docRange: range,
        });
    }
    for (const doc of docs) fromDocument(s.name, doc, out);
  }
  return out;
}

/** `file:line` (or `file` for objects without text), plus the List item when there is one. */
export function describeOrigin(o: Origin): string {
  const at = o.line > 0 ? `${o.source}:${o.line}` : o.source;
  return o.item === undefined ? at : `${at} (items[${o.item}])`;
}

/** apiVersion, kind and metadata.name of a decoded object ("" when absent). */
export function typeOf(v: JsonValue): { apiVersion: string; kind: string; name: string } {
  if (!isObject(v)) return { apiVersion: "", kind: "", name: "" };
  return {
    apiVersion: str(v, "apiVersion"),
    kind: str(v, "kind"),
    name: str(obj(v, "metadata"), "name"),
  };
}
