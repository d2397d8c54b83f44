/**
 * `portcullis validate`: every admission object in the input judged as a v1.37.2 apiserver
 * would judge a create with fieldValidation=Strict (an update of the stored object, ratcheting
 * included, when --context names a cluster that has it).
 */
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";
import type { ValidationIssue } from "@/lib/admission/validate/issue";
import { fieldSegments } from "@/lib/admission/validate/issue";
import type { JsonObject, JsonValue } from "@/lib/admission/validate/json";
import { isObject, obj } from "@/lib/admission/validate/json";
import { kindInfoFor } from "@/lib/admission/validate/kind-info";
import { validateObject } from "@/lib/admission/validate/validate-object";
import type { ValidateCommand } from "../args";
import type { SourceObject, SourceProblem } from "../documents";
import { readDocuments, typeOf } from "../documents";
import type { Live } from "../live";
import { readInputs } from "../input";
import type { Notice } from "../snapshot";
import { notServedBy } from "../snapshot";

const ADMISSION_GROUP = "admissionregistration.k8s.io";

/** One finding, placed in the source when the object came from text. */
export interface ReportedIssue {
  severity: "error" | "warning";
  /** Field path as the apiserver prints it; "" for the whole document. */
  field: string;
  /** The apiserver's cause reason (FieldValueInvalid, …) or YAMLSyntax / FieldValueUnknown for decoding. */
  type: string;
  /** The apiserver's message for this cause, without the field path. */
  message: string;
  /** yaml: the text did not parse; schema: strict decoding (400); admission: validation (422). */
  source: "yaml" | "schema" | "admission";
  /** 1-based; null for objects read from a cluster. */
  line: number | null;
  column: number | null;
  endLine: number | null;
  endColumn: number | null;
}

/** How the apiserver would answer: accepted, 400 at decoding, 422 at validation, or not our kind. */
type Outcome = "accepted" | "invalid" | "decode-error" | "yaml-error" | "skipped";

/** The verdict on one document (or one item of a `kind: List`). */
export interface DocumentReport {
  /** File name, `<stdin>`, or `cluster <context>`. */
  source: string;
  /** 0-based index of the YAML document in its file. */
  document: number;
  /** Index in a List's items, or null. */
  item: number | null;
  /** 1-based line where the object starts (null for cluster objects). */
  line: number | null;
  apiVersion: string;
  kind: string;
  name: string;
  outcome: Outcome;
  /** "create", or "update" when validated against the object stored in the cluster. */
  operation: "create" | "update";
  /** The apiserver's Status message for a rejection; "" when accepted or skipped. */
  status: string;
  issues: ReportedIssue[];
}

/** `portcullis validate --output json`. */
export interface ValidateReport {
  schema: "portcullis.validate/v1";
  /** True when no document is invalid. */
  ok: boolean;
  summary: {
    documents: number;
    accepted: number;
    invalid: number;
    skipped: number;
    errors: number;
    warnings: number;
  };
  documents: DocumentReport[];
  notices: Notice[];
}

function placed(i: ValidationIssue, so: SourceObject | undefined): ReportedIssue {
  const segs = fieldSegments(i.field);
  const dup =
    i.type === "FieldValueDuplicate" && i.source === "schema"
      ? so?.duplicates.find((d) => d.segments.join("\u0000") === segs.join("\u0000"))?.range
      : undefined;
  const range = so
    ? (dup ??
      so.rangeOf(
        segs,
        i.type === "FieldValueUnknown" || i.type === "FieldValueDuplicate" ? "key" : "value",
      ))
    : undefined;
  return {
    severity: i.severity,
    field: i.field,
    type: i.type,
    message: i.message,
    source: i.source,
    line: range?.startLine ?? null,
    column: range?.startCol ?? null,
    endLine: range?.endLine ?? null,
    endColumn: range?.endCol ?? null,
  };
}

function problemReport(p: SourceProblem): DocumentReport {
  return {
    source: p.origin.source,
    document: p.origin.document,
    item: null,
    line: p.origin.line,
    apiVersion: "",
    kind: "",
    name: "",
    outcome: "yaml-error",
    operation: "create",
    status: p.message,
    issues: [
      {
        severity: "error",
        field: "",
        type: p.message.startsWith("Request entity too large")
          ? "RequestEntityTooLarge"
          : "YAMLSyntax",
        message: p.message,
        source: "yaml",
        line: p.range.startLine,
        column: p.range.startCol,
        endLine: p.range.endLine,
        endColumn: p.range.endCol,
      },
    ],
  };
}

/** Where an object came from, for a report. */
interface ObjectOrigin {
  source: string;
  document: number;
  item: number | null;
  line: number | null;
}

/**
 * Validates one decoded object. `so` places issues in the text; `old` is the stored object for
 * update semantics.
 */
function validateOne(
  value: JsonValue,
  origin: ObjectOrigin,
  so: SourceObject | undefined,
  old: JsonObject | undefined,
  minor: KubernetesMinor | undefined,
): DocumentReport {
  const t = typeOf(value);
  const base = { ...origin, ...t, operation: old ? ("update" as const) : ("create" as const) };
  const info = kindInfoFor(t.apiVersion, t.kind, minor);
  if (!info) {
    const ours = t.apiVersion.split("/")[0] === ADMISSION_GROUP;
    if (isObject(value) && t.kind !== "" && t.apiVersion !== "" && !ours)
      return { ...base, outcome: "skipped", status: "", issues: [] };
    const field = !isObject(value) ? "" : t.kind === "" ? "kind" : "apiVersion";
    const message = !isObject(value)
      ? "the document is not an object"
      : t.kind === ""
        ? "Object 'Kind' is missing"
        : t.apiVersion === ""
          ? "Object 'apiVersion' is missing"
          : `no kind ${JSON.stringify(t.kind)} is registered for version ${JSON.stringify(t.apiVersion)}`;
    const issue = placed(
      { field, type: "FieldValueNotSupported", message, severity: "error", source: "schema" },
      so,
    );
    return { ...base, outcome: "decode-error", status: message, issues: [issue] };
  }
  const v = validateObject(info, value, old, {
    duplicates: so?.duplicates.map((d) => d.segments),
    minor,
  });
  const issues = v.issues.map((i) => placed(i, so));
  const era = notServedBy(info);
  if (era)
    issues.unshift(
      placed(
        {
          field: "apiVersion",
          type: "FieldValueNotSupported",
          message: `${t.apiVersion} ${t.kind} is not served by Kubernetes ${era}: a v1.37 apiserver answers 404 and kubectl apply fails with "no matches for kind"; checked against its historical schema`,
          severity: "warning",
          source: "schema",
        },
        so,
      ),
    );
  return {
    ...base,
    name: v.name || t.name,
    outcome: v.outcome,
    status: v.statusMessage,
    issues,
  };
}

/** Validates read documents; `stored` maps `kind/name` to the cluster's object (update semantics). */
function validateRead(
  objects: readonly SourceObject[],
  problems: readonly SourceProblem[],
  stored: ReadonlyMap<string, JsonObject> = new Map(),
  minor?: KubernetesMinor,
): DocumentReport[] {
  const out: { seq: number; report: DocumentReport }[] = problems.map((p) => ({
    seq: p.origin.seq,
    report: problemReport(p),
  }));
  for (const so of objects) {
    const t = typeOf(so.value);
    const origin = {
      source: so.origin.source,
      document: so.origin.document,
      item: so.origin.item ?? null,
      line: so.origin.line,
    };
    const report = validateOne(so.value, origin, so, stored.get(`${t.kind}/${t.name}`), minor);
    out.push({ seq: so.origin.seq, report });
  }
  return out.sort((a, b) => a.seq - b.seq).map((x) => x.report);
}

/** The report for a list of document verdicts. */
function validateReport(documents: DocumentReport[], notices: Notice[]): ValidateReport {
  const count = (o: Outcome) => documents.filter((d) => d.outcome === o).length;
  const issues = documents.flatMap((d) => d.issues);
  const skipped = documents.filter((d) => d.outcome === "skipped");
  const allNotices = [
    ...notices,
    ...skipped.map((d) => ({
      at: d.line === null ? d.source : `${d.source}:${d.line}`,
      message: `skipped: ${d.kind} ${d.apiVersion} is not an admission configuration`,
    })),
  ];
  const accepted = count("accepted");
  const invalid = documents.length - accepted - skipped.length;
  return {
    schema: "portcullis.validate/v1",
    ok: invalid === 0,
    summary: {
      documents: documents.length,
      accepted,
      invalid,
      skipped: skipped.length,
      errors: issues.filter((i) => i.severity === "error").length,
      warnings: issues.filter((i) => i.severity === "warning").length,
    },
    documents,
    notices: allNotices,
  };
}

// Fields the server sets; a stored object re-validated as a create must not carry them.
function asCreate(o: JsonObject): JsonObject {
  const { status: _status, ...rest } = o;
  const meta = obj(o, "metadata") ?? {};
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    managedFields: _mf,
    generation: _g,
    selfLink: _sl,
    ...keep
  } = meta;
  return { ...rest, metadata: keep };
}

/** Runs the command: the report and nothing else (the caller prints and picks the exit code). */
export async function runValidate(cmd: ValidateCommand): Promise<ValidateReport> {
  const notices: Notice[] = [];
  let stored = new Map<string, JsonObject>();
  let live: Live | undefined;
  if (cmd.context !== undefined) {
    const liveModule = await import("../live");
    live = liveModule.connect(cmd.context, cmd.kubeconfig);
    const objs = await liveModule.readConfigurations(live, notices);
    stored = new Map(objs.map((o) => [`${typeOf(o).kind}/${typeOf(o).name}`, o]));
  }
  if (cmd.inputs.length === 0 && live) {
    const source = `cluster ${live.context}`;
    const docs = [...stored.values()].map((o, i) =>
      validateOne(
        asCreate(o),
        { source, document: i, item: null, line: null },
        undefined,
        undefined,
        cmd.kubernetesVersion,
      ),
    );
    return validateReport(docs, notices);
  }
  const read = readDocuments(await readInputs(cmd.inputs));
  return validateReport(
    validateRead(read.objects, read.problems, stored, cmd.kubernetesVersion),
    notices,
  );
}
