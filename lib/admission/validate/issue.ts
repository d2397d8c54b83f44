import type { CauseType } from "./field-error";

/** A 1-based source range (end column exclusive). */
export interface SourceRange {
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
}

/** Where a finding comes from: the YAML parser, strict decoding, or apiserver validation. */
type IssueSource = "yaml" | "schema" | "admission";

/** One finding about a document, in the apiserver's terms. */
export interface ValidationIssue {
  /** The field path exactly as the apiserver prints it (`webhooks[0].rules[1].resources[2]`). */
  field: string;
  /**
   * The cause reason (status.details.causes[].reason), or a decode category for schema issues;
   * for yaml issues, YAMLSyntax (the text is not YAML) or YAMLDecode (YAML that
   * sigs.k8s.io/yaml refuses to turn into JSON).
   */
  type: CauseType | "YAMLSyntax" | "YAMLDecode" | "RequestEntityTooLarge";
  /** The message without the field path, as in status.details.causes[].message. */
  message: string;
  severity: "error" | "warning";
  source: IssueSource;
  /** The token in the source text; absent for objects validated without text. */
  range?: SourceRange;
}

/** Splits a field.Path string back into segments: `a.b[2][key]` → ["a", "b", 2, "key"]. */
export function fieldSegments(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (let m = re.exec(field); m; m = re.exec(field)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(/^\d+$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  return out;
}
