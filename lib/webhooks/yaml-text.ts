/** Objects ↔ the editor's YAML text. Pure. */
import type {
  CreateNodeOptions,
  DocumentOptions,
  ParseOptions,
  ScalarTag,
  SchemaOptions,
  ToStringOptions,
} from "yaml";
import { parseDocument, stringify } from "yaml";
import type { DuplicateKey } from "@/lib/admission/validate/source-map";
import { parseDocuments } from "@/lib/admission/validate/source-map";
import { goScalar } from "@/lib/admission/validate/go-yaml-scalar";
import type { JsonValue } from "@/lib/admission/validate/json";

/** Would go-yaml v2 read `s`, written plain, as anything but the string `s`? */
function goMisreads(s: string): boolean {
  // A plain << key is a merge key.
  if (s === "<<") return true;
  try {
    const v = goScalar(s, "", true);
    return v.kind !== "str" || v.value !== s;
  } catch {
    return true;
  }
}

/** A RegExp whose test() is goMisreads: the yaml library asks a tag's `test` whether to quote. */
class GoMisreads extends RegExp {
  constructor() {
    super("(?!)");
  }
  override test(s: string): boolean {
    return goMisreads(s);
  }
}

/**
 * Written with this tag, a string is quoted wherever go-yaml v2 would not read it back as that
 * string: the YAML 1.1 schema alone writes 0o17, 0B11 and << plain, which the apiserver's YAML
 * path reads as 15, 3 and a merge key.
 */
const goQuoted: ScalarTag = {
  tag: "tag:portcullis.dev,2024:go-yaml-string",
  default: true,
  test: new GoMisreads(),
  resolve: (s: string) => s,
};

const writeOptions: DocumentOptions & SchemaOptions & CreateNodeOptions & ToStringOptions = {
  version: "1.1",
  // A "<<" string is a string (quoted by goQuoted), not the YAML 1.1 schema's merge key.
  customTags: (tags) => [
    ...tags.filter((t) => typeof t === "string" || t.tag !== "tag:yaml.org,2002:merge"),
    goQuoted,
  ],
  lineWidth: 0,
  aliasDuplicateObjects: false,
};

/**
 * Reading the editor's text to change it: every scalar stays as written (a string, whatever
 * it looks like), so a form edit rewrites nothing else — the YAML 1.1 schema turned a
 * timestamp annotation into another string and `0:10` into `00:10`.
 */
const editOptions: DocumentOptions & ParseOptions & SchemaOptions = {
  version: "1.1",
  schema: "failsafe",
  resolveKnownTags: false,
  merge: false,
  uniqueKeys: false,
};

/** The object as the editor shows it: managedFields left out (server bookkeeping, noise). */
export function toEditorYaml(obj: unknown): string {
  const src = structuredClone(obj) as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: Record<string, unknown>;
  };
  if (src.metadata) delete src.metadata.managedFields;
  // apiVersion and kind first, as kubectl prints them.
  const { apiVersion, kind, ...rest } = src;
  const o = { apiVersion, kind, ...rest };
  return stringify(o, writeOptions);
}

/** The editor's text read for sending: the value, or why nothing may be sent. */
export type EditorRead = { ok: true; value: JsonValue } | { ok: false; error: string };

const pathText = (segs: readonly (string | number)[]): string =>
  segs.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");

function duplicateText(d: DuplicateKey): string {
  const what = d.merge
    ? `${pathText(d.segments)} is set both by a merge key (<<) and another setting`
    : `${pathText(d.segments)} is set twice`;
  return `${what} (line ${d.range.startLine})`;
}

/**
 * The first document of the text as JSON, read the way the apiserver reads YAML; refused when
 * it does not parse, or when a key is set twice: JSON carries one value per key, so only the
 * last would be sent (and the apiserver's strict decoding refuses such YAML).
 */
export function readEditorYaml(text: string): EditorRead {
  const doc = parseDocuments(text).find((d) => d.problems.length > 0 || d.value !== null);
  if (!doc) return { ok: false, error: "the document is empty" };
  const p = doc.problems[0];
  if (p) return { ok: false, error: `line ${p.range.startLine}: ${p.message}` };
  const [d, ...more] = doc.duplicates;
  if (d)
    return {
      ok: false,
      error:
        duplicateText(d) +
        (more.length > 0 ? ` and ${more.length} more key${more.length > 1 ? "s" : ""}` : "") +
        ": a key may be given once",
    };
  return { ok: true, value: doc.value };
}

/** readEditorYaml's value; undefined when it refuses the text. */
export function parseEditorYaml(text: string): JsonValue | undefined {
  const r = readEditorYaml(text);
  return r.ok ? r.value : undefined;
}

/**
 * Sets (or with `undefined` deletes) the value at a path, keeping comments and layout of the rest
 * of the text. Used by the form view so form and YAML stay one source of truth.
 */
export function setYamlPath(
  text: string,
  path: ReadonlyArray<string | number>,
  value: unknown,
): string {
  const doc = parseDocument(text, editOptions);
  if (doc.errors.length > 0) return text;
  if (value === undefined) {
    if (doc.hasIn(path)) doc.deleteIn(path);
  } else {
    // The value written as toEditorYaml writes it, then read as the text is: its strings
    // quoted where go-yaml would read them otherwise.
    doc.setIn(path, parseDocument(stringify(value, writeOptions), editOptions).contents);
  }
  return doc.toString({ lineWidth: 0 });
}
