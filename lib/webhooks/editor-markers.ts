/**
 * Editor markers from the three sources the editor shows: the validator in lib/admission
 * (as you type) and the apiserver's own answer (a 422's status.details.causes[].field mapped
 * to the YAML token, or a strict-decoding 400's field names). Pure: Monaco-shaped plain data.
 */
import { fieldSegments, type ValidationIssue } from "@/lib/admission/validate/issue";
import { parseDocuments } from "@/lib/admission/validate/source-map";
import type { KubeApiErrorBody } from "@/lib/k8s/errors";

export interface MarkerData {
  startLineNumber: number;
  startColumn: number;
  endLineNumber: number;
  endColumn: number;
  message: string;
  severity: "error" | "warning";
  /** The field path the apiserver named, when known. */
  field?: string;
}

/**
 * The validator's issues the editor marks itself: all but YAML syntax errors, which
 * monaco-yaml marks (YAML it parses but the apiserver's YAML path refuses is marked here).
 */
export function validatorMarkers(issues: readonly ValidationIssue[]): MarkerData[] {
  return issueMarkers(issues.filter((i) => i.type !== "YAMLSyntax"));
}

/** Validator issues as markers (issues without a place land on line 1). */
function issueMarkers(issues: readonly ValidationIssue[]): MarkerData[] {
  return issues.map((i) => {
    const r = i.range ?? { startLine: 1, startCol: 1, endLine: 1, endCol: 2 };
    return {
      startLineNumber: r.startLine,
      startColumn: r.startCol,
      endLineNumber: r.endLine,
      endColumn: Math.max(r.endCol, r.startLine === r.endLine ? r.startCol + 1 : r.endCol),
      message: i.field ? `${i.field}: ${i.message}` : i.message,
      severity: i.severity,
      field: i.field || undefined,
    };
  });
}

const STRICT_FIELD = /(unknown|duplicate) field "([^"]+)"/g;

/**
 * The apiserver's rejection placed in the text: each cause at the token its field names (the
 * apiserver's own message), strict-decoding field names at their keys, anything unplaceable on
 * line 1 with the whole message.
 */
export function apiErrorMarkers(text: string, err: KubeApiErrorBody): MarkerData[] {
  const doc = parseDocuments(text).find((d) => d.value !== null) ?? parseDocuments(text)[0];
  const out: MarkerData[] = [];
  const place = (field: string, message: string, prefer: "value" | "key") => {
    const r = doc
      ? doc.rangeOf(fieldSegments(field), prefer)
      : { startLine: 1, startCol: 1, endLine: 1, endCol: 2 };
    out.push({
      startLineNumber: r.startLine,
      startColumn: r.startCol,
      endLineNumber: r.endLine,
      endColumn: r.startLine === r.endLine ? Math.max(r.endCol, r.startCol + 1) : r.endCol,
      message,
      severity: "error",
      field,
    });
  };
  for (const c of err.details?.causes ?? []) {
    if (c.field) {
      const m = /^(unknown|duplicate) field "([^"]+)"$/.exec(c.message ?? "");
      if (m?.[2]) place(m[2], `${c.message}`, "key");
      else place(c.field, `${c.field}: ${c.message ?? c.reason ?? ""}`, "value");
    }
  }
  if (out.length === 0) {
    for (const m of err.message.matchAll(STRICT_FIELD)) {
      if (m[2]) place(m[2], `${m[1]} field "${m[2]}" (${err.reason}: ${err.message})`, "key");
    }
  }
  if (out.length === 0)
    out.push({
      startLineNumber: 1,
      startColumn: 1,
      endLineNumber: 1,
      endColumn: 200,
      message: `${err.status} ${err.reason}: ${err.message}`,
      severity: "error",
    });
  return out;
}
