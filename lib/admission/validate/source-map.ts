/**
 * Parses YAML or JSON text into JSON values the way the apiserver's YAML path sees them
 * (sigs.k8s.io/yaml: go-yaml v2's scalars, merge keys, aliases expanded), remembering where every value and key sits in
 * the text and which keys repeat. Work is capped: 3 MiB of text (the apiserver's request body
 * limit), a node budget so alias bombs cannot explode, and a nesting depth limit.
 */
import type { Document, Node, ParsedNode } from "yaml";
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  Scalar,
} from "yaml";
import type { GoScalar } from "./go-yaml-scalar";
import { goMapKey, goScalar, goScalarJson, GoYamlError } from "./go-yaml-scalar";
import type { SourceRange } from "./issue";
import type { JsonObject, JsonValue } from "./json";

/** The apiserver's default request body limit (3 MiB). */
export const maxRequestBytes = 3 * 1024 * 1024;
const maxNodes = 1_000_000;
// Nodes reached through aliases; go-yaml refuses "excessive aliasing" well before this.
const maxAliasNodes = 100_000;
const maxDepth = 512;

/** Offsets of one path in the text. */
interface Located {
  key?: [number, number];
  value?: [number, number];
}

/** A parse problem with its position. */
interface TextProblem {
  message: string;
  range: SourceRange;
  /**
   * The text parses as YAML but sigs.k8s.io/yaml refuses it (go-yaml's decoder or
   * encoding/json: `.inf`, `!!int foo`, a merge of a scalar, an unknown anchor, a null key,
   * excessive aliasing); unset for a syntax error.
   */
  decode?: boolean;
}

/**
 * A key set twice in its mapping: the path and the range of the key that set it again. go-yaml v2
 * in strict mode (what the apiserver runs on YAML with fieldValidation=Strict) refuses a key set
 * twice however it was set, so a key both written and brought in by a merge key (`<<: *anchor`),
 * or brought in by two merged mappings, counts too: `merge` is then true and the range is the
 * later of the explicit key and the `<<`.
 */
export interface DuplicateKey {
  segments: (string | number)[];
  range: SourceRange;
  merge?: boolean;
}

/** One parsed document: its value, the source map and what went wrong while reading it. */
export interface ParsedDocument {
  index: number;
  value: JsonValue;
  problems: TextProblem[];
  duplicates: DuplicateKey[];
  /** The range of the token for a path: the value when present, else the key, else the nearest parent. */
  rangeOf(segments: readonly (string | number)[], prefer?: "value" | "key"): SourceRange;
  /** The whole document's range. */
  docRange: SourceRange;
}

const pathKey = (segs: readonly (string | number)[]): string =>
  segs.map((s) => (typeof s === "number" ? `#${s}` : `.${s}`)).join("\u0000");

class BudgetError extends Error {}

/** A document go-yaml refuses, at the node it refuses. */
class NodeError extends Error {
  constructor(
    message: string,
    readonly at: [number, number] | undefined,
  ) {
    super(message);
  }
}

/** Sets an own property, `__proto__` included (a plain assignment would set the prototype). */
function put(o: JsonObject, k: string, v: JsonValue): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

const mergeTag = "tag:yaml.org,2002:merge";

/**
 * go-yaml v2's isMerge: a `<<` key that is plain and untagged (or tagged `!`), or tagged !!merge.
 * A quoted '<<' is an ordinary key.
 */
function isMergeKey(k: unknown): boolean {
  if (!isScalar(k) || k.source !== "<<") return false;
  return k.tag === mergeTag || k.tag === "!" || (!k.tag && k.type === Scalar.PLAIN);
}

function toRange(lc: LineCounter, start: number, end: number): SourceRange {
  const a = lc.linePos(start);
  const b = lc.linePos(Math.max(start, end));
  return { startLine: a.line, startCol: a.col, endLine: b.line, endCol: b.col };
}

/** A scalar node as go-yaml v2 decodes it (its text, explicit tag and style). */
function goScalarOf(n: Scalar): GoScalar {
  return goScalar(n.source ?? "", n.tag ?? "", n.type === Scalar.PLAIN || n.type === undefined);
}

function convertDocument(
  doc: Document.Parsed,
  lc: LineCounter,
  index: number,
  textLen: number,
): ParsedDocument {
  const locs = new Map<string, Located>();
  const duplicates: DuplicateKey[] = [];
  const problems: TextProblem[] = [];
  let budget = maxNodes;
  let aliasBudget = maxAliasNodes;

  const nodeRange = (n: Node | null | undefined): [number, number] | undefined =>
    n?.range ? [n.range[0], n.range[1]] : undefined;

  // go-yaml's refusal of a scalar, placed on it.
  const goRead = <T>(n: Node | null | undefined, read: () => T): T => {
    try {
      return read();
    } catch (e) {
      if (e instanceof GoYamlError) throw new NodeError(e.message, nodeRange(n));
      throw e;
    }
  };

  // A key as sigs.k8s.io/yaml writes it in JSON; `pair` places a missing key.
  const keyOf = (k: Node | null, pair: Node | null): string => {
    const n = isAlias(k) ? k.resolve(doc) : k;
    if (n && !isScalar(n))
      throw new NodeError(
        `yaml: invalid map key: ${isSeq(n) ? "[]interface {}" : "map[interface {}]interface {}"}`,
        nodeRange(k),
      );
    return goRead(k ?? pair, () => goMapKey(n ? goScalarOf(n) : { kind: "null" }));
  };

  // The mappings a merge key's value brings in, in the order go-yaml sets their keys: one
  // mapping, or a sequence of mappings walked from its last item so that earlier ones win.
  const mergeSources = (v: Node | null | undefined): Node[] => {
    const isMapping = (n: Node | null | undefined): boolean =>
      !!n && (isMap(n) || (isAlias(n) && isMap(n.resolve(doc))));
    if (v && isMapping(v)) return [v];
    if (isSeq(v) && v.items.every((it) => isMapping(it as Node)))
      return [...v.items].reverse() as Node[];
    throw new NodeError(
      "yaml: map merge requires map or sequence of maps as the value",
      nodeRange(v),
    );
  };

  // `record`: the node is written at this path (not reached through an alias), so its positions
  // are remembered. `own`: the node is written in the text here or is a merge key's inline
  // mapping, so a key it sets twice is reported (through an alias, it was where the anchor is).
  const walk = (
    node: Node | null | undefined,
    segs: (string | number)[],
    depth: number,
    record: boolean,
    own: boolean,
  ): JsonValue => {
    if (--budget < 0 || (!own && --aliasBudget < 0))
      throw new BudgetError("document contains excessive aliasing");
    if (depth > maxDepth) throw new BudgetError(`exceeded max depth of ${maxDepth}`);
    if (!node) return null;
    if (record && node.range) {
      const loc = locs.get(pathKey(segs)) ?? {};
      loc.value ??= [node.range[0], node.range[1]];
      locs.set(pathKey(segs), loc);
    }
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (!target)
        throw new NodeError(`yaml: unknown anchor '${node.source}' referenced`, nodeRange(node));
      return walk(target as Node, segs, depth + 1, false, false);
    }
    if (isScalar(node)) return goRead(node, () => goScalarJson(goScalarOf(node)));
    if (isSeq(node))
      return node.items.map((it, i) => walk(it as Node, [...segs, i], depth + 1, record, own));
    if (isMap(node)) {
      // go-yaml v2 sets the keys in the order they are written, a merge key's mappings at the
      // merge key's place: a later setting overwrites an earlier one, whichever way each came.
      const out: JsonObject = {};
      const merged = new Set<string>();
      const setAgain = (k: string, at: [number, number] | undefined, merge: boolean) => {
        if (own)
          duplicates.push({
            segments: [...segs, k],
            range: toRange(lc, at?.[0] ?? 0, at?.[1] ?? 0),
            ...(merge ? { merge } : {}),
          });
      };
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as Node | null;
        const keyRange = nodeRange(keyNode);
        if (isMergeKey(keyNode)) {
          for (const src of mergeSources(pair.value as Node | null)) {
            const v = walk(src, segs, depth + 1, false, own && !isAlias(src));
            if (!v || typeof v !== "object" || Array.isArray(v)) continue;
            for (const [k, val] of Object.entries(v)) {
              if (Object.hasOwn(out, k)) setAgain(k, keyRange, true);
              put(out, k, val);
              merged.add(k);
            }
          }
          continue;
        }
        const k = keyOf(keyNode, pair.value as Node | null);
        const childSegs = [...segs, k];
        if (Object.hasOwn(out, k)) setAgain(k, keyRange, merged.has(k));
        else if (record && keyRange) {
          const loc = locs.get(pathKey(childSegs)) ?? {};
          loc.key = keyRange;
          locs.set(pathKey(childSegs), loc);
        }
        merged.delete(k);
        put(out, k, walk(pair.value as Node, childSegs, depth + 1, record, own));
      }
      return out;
    }
    return null;
  };

  let value: JsonValue = null;
  for (const e of doc.errors) {
    problems.push({
      message: e.message.split("\n")[0] ?? e.message,
      range: toRange(lc, e.pos[0], e.pos[1]),
    });
  }
  if (problems.length === 0) {
    try {
      value = walk(doc.contents as ParsedNode | null, [], 0, true, true);
    } catch (e) {
      const msg =
        e instanceof BudgetError || e instanceof NodeError
          ? e.message
          : e instanceof RangeError
            ? "document nesting is too deep"
            : String(e);
      const at = e instanceof NodeError ? e.at : undefined;
      const start = at?.[0] ?? doc.range[0];
      const end = at?.[1] ?? Math.min(textLen, start + 1);
      problems.push({ message: msg, range: toRange(lc, start, end), decode: true });
      value = null;
    }
  }
  const docRange = toRange(lc, doc.range[0], doc.range[1]);
  const rangeOf = (
    segments: readonly (string | number)[],
    prefer: "value" | "key" = "value",
  ): SourceRange => {
    for (let n = segments.length; n >= 0; n--) {
      const loc = locs.get(pathKey(segments.slice(0, n)));
      if (!loc) continue;
      const pick = prefer === "key" ? (loc.key ?? loc.value) : (loc.value ?? loc.key);
      if (pick) return toRange(lc, pick[0], pick[1]);
    }
    return docRange;
  };
  return { index, value, problems, duplicates, rangeOf, docRange };
}

/** Parses every document in `text`. Oversized text gives a single document holding the problem. */
export function parseDocuments(text: string): ParsedDocument[] {
  const lc = new LineCounter();
  const size = new TextEncoder().encode(text).length;
  if (size > maxRequestBytes) {
    const r: SourceRange = { startLine: 1, startCol: 1, endLine: 1, endCol: 2 };
    return [
      {
        index: 0,
        value: null,
        problems: [{ message: `Request entity too large: limit is ${maxRequestBytes}`, range: r }],
        duplicates: [],
        rangeOf: () => r,
        docRange: r,
      },
    ];
  }
  let docs: Document.Parsed[];
  try {
    const parsed = parseAllDocuments(text, {
      lineCounter: lc,
      version: "1.1",
      // Every scalar is resolved here as go-yaml v2 resolves it (goScalar), from its text, tag
      // and style: the library resolves nothing (no Date for a timestamp, no base-60 number),
      // knows no tag and no merge key.
      schema: "failsafe",
      resolveKnownTags: false,
      merge: false,
      uniqueKeys: false,
    });
    docs = Array.isArray(parsed) ? parsed : [];
  } catch (e) {
    const r: SourceRange = { startLine: 1, startCol: 1, endLine: 1, endCol: 2 };
    const message = e instanceof RangeError ? "document nesting is too deep" : String(e);
    return [
      {
        index: 0,
        value: null,
        problems: [{ message, range: r }],
        duplicates: [],
        rangeOf: () => r,
        docRange: r,
      },
    ];
  }
  return docs.map((d, i) => convertDocument(d, lc, i, text.length));
}
