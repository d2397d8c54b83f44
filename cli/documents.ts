/**
 * From manifest text to Kubernetes objects: multi-document YAML/JSON, `kind: List` flattened,
 * every object remembering where it came from (file, document, line) so messages can point at it.
 */
import type { SourceRange } from "@/lib/admission/validate/issue";
import type { JsonObject, JsonValue } from "@/lib/admission/validate/json";
import { arr, isObject, obj, str } from "@/lib/admission/validate/json";
import type { DuplicateKey, ParsedDocument } from "@/lib/admission/validate/source-map";
import { parseDocuments } from "@/lib/admission/validate/source-map";
import type { SourceText } from "./input";

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

function isListKind(v: JsonValue): v is JsonObject {
  return isObject(v) && str(v, "apiVersion") === "v1" && /^[A-Za-z]*List$/.test(str(v, "kind"));
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
  (arr(doc.value, "items") ?? []).forEach((value, item) => {
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

/** Parses every source; empty documents are dropped, `v1 List` items are objects of their own. */
export function readDocuments(sources: readonly SourceText[]): ReadDocuments {
  const out: ReadDocuments = { objects: [], problems: [], seq: 0 };
  for (const s of sources) for (const doc of parseDocuments(s.text)) fromDocument(s.name, doc, out);
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
