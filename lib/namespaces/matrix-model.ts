/**
 * What the namespaces pages compute from the cluster's admission state, in one module the pages
 * load with a dynamic import: compiling a snapshot pulls in the CEL compiler (matchConditions),
 * which stays out of the pages' first-load JavaScript.
 */
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import {
  exemptionMatrix,
  type ExemptionMatrix,
  type MatrixRequest,
} from "@/lib/admission/exemptions/exemptions";
import {
  dependencyGraph,
  type DependencyGraph,
  type DependencyInput,
} from "@/lib/admission/lint/deadlock";
import { lint } from "@/lib/admission/lint/lint";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

export type { CompiledSnapshot };

/** Compiles the snapshot once per change of the cluster's state. */
export function compile(snapshot: AdmissionSnapshot): CompiledSnapshot {
  return compileSnapshot(snapshot);
}

/** The matrix for one grouping label and request. */
export function matrix(
  compiled: CompiledSnapshot,
  groupBy: string,
  request: MatrixRequest,
): ExemptionMatrix {
  return exemptionMatrix(compiled, groupBy, request);
}

/** The deadlock map and the bootstrap findings (L1, L2, L6) with their fixes. */
export function deadlocks(
  input: DependencyInput,
  compiled: CompiledSnapshot,
): { graph: DependencyGraph; findings: LintFinding[] } {
  const findings = lint({ ...input, snapshot: input.snapshot }).filter(
    (f) => f.id === "L1" || f.id === "L2" || f.id === "L6" || f.id === "L7",
  );
  return { graph: dependencyGraph(input, compiled), findings };
}
