/**
 * matchConditions, evaluated with @marcbachmann/cel-js under the apiserver's rules
 * (`webhook/matchconditions/matcher.go` `(*matcher).Match`): any false → skip; all true → call;
 * errors and no false → failurePolicy decides. Where this evaluator cannot stand in for cel-go
 * (authorizer, params, Kubernetes CEL libraries it lacks, syntax it cannot parse) the verdict
 * is "indeterminate" rather than a guess.
 */
import { Environment } from "@marcbachmann/cel-js";
import { celNodes, isCelUint, leftFoldedRelations } from "@/lib/admission/cel/cel-ast";
import {
  GLOBAL_RENAMES,
  memberRenames,
  OVERLOADS,
  type CelGoVersion,
} from "@/lib/admission/cel/cel-go-compat";
import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type {
  AdmissionRequest,
  GroupVersionKind,
  GroupVersionResource,
} from "@/lib/admission/model/request";

/** A matchCondition prepared once. */
export interface CompiledCondition {
  readonly name: string;
  readonly expression: string;
  /** Why this evaluator cannot decide the condition; undefined when it can. */
  readonly unsupported: string | undefined;
  readonly usesObject: boolean;
  readonly run: ((vars: CelVariables) => unknown) | undefined;
}

/** The CEL variables bound for matchConditions. */
export interface CelVariables {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
}

/** Outcome of a hook's matchConditions. */
export type ConditionVerdict =
  | { readonly kind: "match" }
  | { readonly kind: "no-match"; readonly condition: string }
  | {
      readonly kind: "error";
      readonly errors: ReadonlyArray<{ condition: string; message: string }>;
    }
  | { readonly kind: "indeterminate"; readonly condition: string; readonly reason: string };

// Errors cel-go raises the same way at runtime; anything else may be this evaluator's own gap.
const GENUINE_RUNTIME_ERRORS: ReadonlySet<string> = new Set([
  "no_such_key",
  "index_out_of_bounds",
  "division_by_zero",
  "modulus_by_zero",
  "overflow",
  // Raised by re2Matches only for patterns RE2 refuses.
  "invalid_regular_expression",
]);

const environment = new Environment({
  unlistedVariablesAreDyn: false,
  enableOptionalTypes: true,
  homogeneousAggregateLiterals: false,
})
  .registerVariable("object", "dyn")
  .registerVariable("oldObject", "dyn")
  .registerVariable("request", "dyn");
// cel-js cannot replace its own overloads; calls are renamed to these (see goSemantics).
for (const [signature, fn] of OVERLOADS) environment.registerFunction(signature, fn);

const UINT_NOT_MODELLED =
  "uses uint values, whose equality with int inside lists and maps is not modelled";

/**
 * Gives a parsed expression cel-go's semantics where cel-js's built-ins differ: member calls
 * (`rcall` nodes) and global calls (`call` nodes) are renamed to the overloads of
 * cel-go-compat.ts, as cel-go `celGo` (the minor's release: MinorBehaviour.celGo) computes them.
 * Returns why the expression cannot be evaluated faithfully, if it cannot: uint values (cel-js
 * compares 1 and 1u as unequal inside lists and maps; cel-go's heterogeneous equality makes them
 * equal).
 */
export function goSemantics(
  ast: unknown,
  celGo: CelGoVersion = behaviourOf(NEWEST_KUBERNETES_MINOR).celGo,
): string | undefined {
  const members = memberRenames(celGo);
  for (const node of celNodes(ast)) {
    const args = node.args;
    if (node.op === "value" && isCelUint(args)) return UINT_NOT_MODELLED;
    if ((node.op !== "rcall" && node.op !== "call") || !Array.isArray(args)) continue;
    const name = args[0];
    if (node.op === "call" && name === "uint") return UINT_NOT_MODELLED;
    const renames = node.op === "rcall" ? members : GLOBAL_RENAMES;
    if (typeof name === "string" && Object.hasOwn(renames, name)) args[0] = renames[name];
  }
  return undefined;
}

function errorCode(e: unknown): string {
  if (typeof e === "object" && e !== null && "code" in e) {
    const c = (e as { code: unknown }).code;
    return typeof c === "string" ? c : "";
  }
  return "";
}

function errorMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split("\n")[0] ?? m;
}

function unsupportedReason(expression: string, checkError: string): string {
  if (/\bauthorizer\b/.test(expression))
    return "uses authorizer, which needs the cluster's authorizer";
  if (/\bparams\b/.test(expression)) return "uses params, which come from the cluster";
  if (/\bnamespaceObject\b/.test(expression)) return "uses namespaceObject, which is not modelled";
  if (/\bvariables\b/.test(expression)) return "uses policy variables, which are not modelled";
  return `this evaluator cannot compile it (${checkError})`;
}

/**
 * Compiles conditions as `minor`'s apiserver evaluates them (default: the newest); parse or
 * type-check failures become `unsupported`, not errors.
 */
export function compileMatchConditions(
  conditions: ReadonlyArray<{ name: string; expression: string }> | undefined,
  minor: KubernetesMinor = NEWEST_KUBERNETES_MINOR,
): CompiledCondition[] {
  const celGo = behaviourOf(minor).celGo;
  return (conditions ?? []).map((c) => {
    const usesObject = /\b(object|oldObject)\b/.test(c.expression);
    try {
      const parsed = environment.parse(c.expression);
      // Relations grouped as cel-go groups them (see leftFoldedRelations).
      const folded = leftFoldedRelations(c.expression, (parsed as unknown as { ast: unknown }).ast);
      const program = folded ? environment.parse(folded.text) : parsed;
      const notModelled =
        goSemantics((program as unknown as { ast: unknown }).ast, celGo) ??
        (/\brequest\s*\.\s*uid\b/.test(c.expression)
          ? "uses request.uid, which the apiserver generates for each request"
          : undefined);
      const checked = program.check();
      if (!checked.valid || notModelled !== undefined) {
        return {
          name: c.name,
          expression: c.expression,
          unsupported: notModelled ?? unsupportedReason(c.expression, errorMessage(checked.error)),
          usesObject,
          run: undefined,
        };
      }
      return {
        name: c.name,
        expression: c.expression,
        unsupported: undefined,
        usesObject,
        run: (v) => program(v),
      };
    } catch (e) {
      return {
        name: c.name,
        expression: c.expression,
        unsupported: unsupportedReason(c.expression, errorMessage(e)),
        usesObject,
        run: undefined,
      };
    }
  });
}

/** Converts JSON so integers are CEL ints (bigint), as they are for typed Kubernetes fields. */
export function toCelValue(v: unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const arr: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) arr[i] = toCelValue(v[i]);
    return arr;
  }
  const out: Record<string, unknown> = {};
  const src = v as Record<string, unknown>;
  for (const k in src) {
    if (Object.prototype.hasOwnProperty.call(src, k)) out[k] = toCelValue(src[k]);
  }
  return out;
}

/**
 * Builds the `request` variable (`cel.CreateAdmissionRequest`) for the matched kind/resource. The
 * apiserver hands CEL the AdmissionRequest as its JSON would be, so a field tagged omitempty is
 * absent when empty — `request.subResource` without a subresource, `request.name` for a
 * generated name, `request.namespace` for a cluster-scoped object, an empty `userInfo.extra` —
 * and reading it is a "no such key" error, not an empty value (found by the matching fuzz). Its
 * `uid` is generated per request: compileMatchConditions leaves expressions that read it undecided.
 */
export function celRequest(
  r: AdmissionRequest,
  kind: GroupVersionKind,
  resource: GroupVersionResource,
): unknown {
  const str = (v: string | undefined) => (v === "" ? undefined : v);
  const extra = r.userInfo.extra ?? {};
  return toCelValue(
    withoutUndefined({
      kind,
      resource,
      subResource: str(r.subresource),
      requestKind: r.kind,
      requestResource: { group: r.group, version: r.version, resource: r.resource },
      requestSubResource: str(r.subresource),
      name: str(r.name),
      namespace: str(r.namespace),
      operation: r.operation,
      userInfo: withoutUndefined({
        username: str(r.userInfo.username),
        uid: str(r.userInfo.uid),
        groups: r.userInfo.groups.length > 0 ? [...r.userInfo.groups] : undefined,
        extra: Object.keys(extra).length > 0 ? extra : undefined,
      }),
      dryRun: r.dryRun,
      options: r.options ?? null,
    }),
  );
}

function withoutUndefined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Evaluates conditions in order. `convertedKind` is set when the hook matched an equivalent
 * resource: the apiserver would convert the object first, which this module cannot do offline.
 */
export function evaluateMatchConditions(
  conditions: readonly CompiledCondition[],
  vars: () => CelVariables,
  convertedKind?: GroupVersionKind,
): ConditionVerdict {
  let indeterminate: { condition: string; reason: string } | undefined;
  const errors: Array<{ condition: string; message: string }> = [];
  for (const c of conditions) {
    if (c.unsupported !== undefined || c.run === undefined) {
      indeterminate ??= { condition: c.name, reason: c.unsupported ?? "not compiled" };
      continue;
    }
    if (convertedKind && c.usesObject) {
      indeterminate ??= {
        condition: c.name,
        reason: `the object would first be converted to ${convertedKind.group}/${convertedKind.version} ${convertedKind.kind}`,
      };
      continue;
    }
    let result: unknown;
    try {
      result = c.run(vars());
    } catch (e) {
      if (GENUINE_RUNTIME_ERRORS.has(errorCode(e))) {
        errors.push({ condition: c.name, message: errorMessage(e) });
      } else {
        indeterminate ??= {
          condition: c.name,
          reason: `this evaluator failed: ${errorMessage(e)}`,
        };
      }
      continue;
    }
    if (result === false) return { kind: "no-match", condition: c.name };
    if (result instanceof Promise) {
      indeterminate ??= { condition: c.name, reason: "evaluation was asynchronous" };
    }
  }
  if (indeterminate) return { kind: "indeterminate", ...indeterminate };
  if (errors.length > 0) return { kind: "error", errors };
  return { kind: "match" };
}
