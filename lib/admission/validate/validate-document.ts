/**
 * Validation of YAML/JSON text as the apiserver would judge it, with every issue placed on the
 * token it is about.
 */
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";
import type { SourceRange, ValidationIssue } from "./issue";
import { fieldSegments } from "./issue";
import type { JsonValue } from "./json";
import { isObject, obj, str } from "./json";
import { kindInfoFor } from "./kind-info";
import type { ParsedDocument } from "./source-map";
import { parseDocuments } from "./source-map";
import { validateObject } from "./validate-object";

/** The result for one document. */
export interface DocumentResult {
  /** Position of the document in a multi-document stream (0-based). */
  index: number;
  kind: string;
  apiVersion: string;
  name: string;
  issues: ValidationIssue[];
  /** The object as the server would store it, when the kind is known and the text parsed. */
  defaulted?: JsonValue;
}

const wholeDoc = (d: ParsedDocument): SourceRange => d.docRange;

/**
 * What the document is written to: the apiVersion and kind of the URL it is sent to and, for
 * an update, the name in that URL. A document that says otherwise is refused with 400 before
 * validation (the apiserver's "the API version in the data (…) does not match the expected API
 * version (…)"; Portcullis' own checks for kind and name, server/kube/webhooks.ts).
 */
export interface ExpectedTarget {
  apiVersion?: string;
  kind?: string;
  name?: string;
}

/**
 * Where a document does not match its target: one issue per mismatched field (a field left
 * out is filled from the URL and matches).
 */
function targetIssues(
  doc: ParsedDocument,
  found: { apiVersion: string; kind: string; name: string },
  expected: ExpectedTarget,
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const add = (field: string, message: string) =>
    out.push({
      field,
      type: "FieldValueInvalid",
      message,
      severity: "error",
      source: "schema",
      range: doc.rangeOf(fieldSegments(field)),
    });
  if (expected.apiVersion && found.apiVersion && found.apiVersion !== expected.apiVersion)
    add(
      "apiVersion",
      `the API version in the data (${found.apiVersion}) does not match the expected API version (${expected.apiVersion})`,
    );
  if (expected.kind && found.kind && found.kind !== expected.kind)
    add("kind", `kind ${found.kind} does not match ${expected.kind}`);
  if (expected.name !== undefined && found.name && found.name !== expected.name)
    add(
      "metadata.name",
      `metadata.name ${JSON.stringify(found.name)} does not match ${JSON.stringify(expected.name)}: use rename to change the name`,
    );
  return out;
}

function validateParsed(
  doc: ParsedDocument,
  old: JsonValue | undefined,
  expected: ExpectedTarget = {},
  minor?: KubernetesMinor,
): DocumentResult {
  const base = { index: doc.index, kind: "", apiVersion: "", name: "" };
  if (doc.problems.length > 0)
    return {
      ...base,
      issues: doc.problems.map((p) => ({
        field: "",
        type: p.message.startsWith("Request entity too large")
          ? "RequestEntityTooLarge"
          : p.decode
            ? "YAMLDecode"
            : "YAMLSyntax",
        message: p.message,
        severity: "error",
        source: "yaml",
        range: p.range,
      })),
    };
  const v = doc.value;
  const apiVersion = isObject(v) ? str(v, "apiVersion") : "";
  const kind = isObject(v) ? str(v, "kind") : "";
  const name = str(obj(isObject(v) ? v : undefined, "metadata"), "name");
  const info = kindInfoFor(apiVersion, kind, minor);
  const mismatches = isObject(v) ? targetIssues(doc, { apiVersion, kind, name }, expected) : [];
  if (!isObject(v) || !info) {
    const field = !isObject(v) ? "" : !kind ? "kind" : "apiVersion";
    const message = !isObject(v)
      ? "the document is not an object"
      : `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`;
    return {
      index: doc.index,
      kind,
      apiVersion,
      name,
      issues: [
        ...mismatches.filter((m) => m.field !== field),
        {
          field,
          type: "FieldValueNotSupported",
          message,
          severity: "error",
          source: "schema",
          range: field ? doc.rangeOf([field]) : wholeDoc(doc),
        },
      ],
    };
  }
  const res = validateObject(info, v, old, {
    duplicates: doc.duplicates.map((d) => d.segments),
    minor,
  });
  const dupRanges = new Map(doc.duplicates.map((d) => [d.segments.join("\u0000"), d.range]));
  const issues = res.issues.map((i) => {
    const segs = fieldSegments(i.field);
    const range =
      i.type === "FieldValueDuplicate" && i.source === "schema"
        ? (dupRanges.get(segs.join("\u0000")) ?? doc.rangeOf(segs, "key"))
        : i.type === "FieldValueUnknown"
          ? doc.rangeOf(segs, "key")
          : doc.rangeOf(segs);
    return { ...i, range };
  });
  return {
    index: doc.index,
    kind,
    apiVersion,
    name: res.name,
    issues: [...mismatches, ...issues],
    defaulted: res.defaulted,
  };
}

/**
 * Validates every document of a YAML/JSON stream (create semantics), as `opts.minor`'s apiserver
 * would (default: the newest).
 * @returns one result per non-empty document, with its index in the stream
 */
export function validateDocuments(
  text: string,
  opts: { minor?: KubernetesMinor } = {},
): DocumentResult[] {
  return parseDocuments(text)
    .filter((d) => d.problems.length > 0 || d.value !== null)
    .map((d) => validateParsed(d, undefined, {}, opts.minor));
}

/**
 * Validates the first document of `text` as a create, or as an update of `opts.oldText` (the
 * stored object) so that upstream's ratcheting applies; with `opts.expected`, a document that
 * does not match what it is written to (apiVersion, kind, an update's name) is refused too.
 */
export function validateDocument(
  text: string,
  opts: { oldText?: string; expected?: ExpectedTarget; minor?: KubernetesMinor } = {},
): DocumentResult {
  const docs = parseDocuments(text);
  const doc = docs.find((d) => d.problems.length > 0 || d.value !== null) ?? docs[0];
  let old: JsonValue | undefined;
  if (opts.oldText !== undefined) {
    const od = parseDocuments(opts.oldText).find((d) => d.value !== null);
    if (od && od.problems.length === 0) old = od.value;
  }
  if (!doc)
    return {
      index: 0,
      kind: "",
      apiVersion: "",
      name: "",
      issues: [
        {
          field: "",
          type: "YAMLSyntax",
          message: "the document is empty",
          severity: "error",
          source: "yaml",
          range: { startLine: 1, startCol: 1, endLine: 1, endCol: 1 },
        },
      ],
    };
  return validateParsed(doc, old, opts.expected, opts.minor);
}
