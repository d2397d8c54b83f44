/**
 * Admission policies evaluated offline, as the apiserver's policy plugins evaluate one binding:
 * ValidatingAdmissionPolicy (`validating/validator.go` and `dispatcher.go`: variables,
 * validations with message and messageExpression, auditAnnotations, the binding's
 * validationActions, failurePolicy on errors) and MutatingAdmissionPolicy (`mutating/`: JSONPatch
 * and ApplyConfiguration mutations applied in order). CEL runs on the same evaluator and with
 * the same cel-go adjustments as matchConditions (matching/condition-evaluator.ts), those of the
 * minor's cel-go release (PolicyInputs.minor; default: the newest). Whatever it
 * cannot stand in for — `authorizer`, a Kubernetes CEL library it lacks, a param object not
 * given in full — makes the evaluation `undecided`, with the reason, never a guess.
 */
import { Environment } from "@marcbachmann/cel-js";
import { leftFoldedRelations } from "@/lib/admission/cel/cel-ast";
import { OVERLOADS } from "@/lib/admission/cel/cel-go-compat";
import { celRequest, goSemantics, toCelValue } from "@/lib/admission/matching/condition-evaluator";
import type { AdmissionRequest, JsonObject } from "@/lib/admission/model/request";
import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type { PolicyResult } from "./format";

const environment = new Environment({
  unlistedVariablesAreDyn: false,
  enableOptionalTypes: true,
  homogeneousAggregateLiterals: false,
})
  .registerVariable("object", "dyn")
  .registerVariable("oldObject", "dyn")
  .registerVariable("request", "dyn")
  .registerVariable("params", "dyn")
  .registerVariable("namespaceObject", "dyn")
  .registerVariable("variables", "dyn");
for (const [signature, fn] of OVERLOADS) environment.registerFunction(signature, fn);

/** An expression that cannot be evaluated offline. */
class Undecided extends Error {}

type Program = (vars: Record<string, unknown>) => unknown;

/** Compiled programs (or why not), by the cel-go release and the expression. */
const programs = new Map<string, Program | string>();

/**
 * Rewrites CEL's typed object construction (`Object{spec: Object.spec{…}}`,
 * `JSONPatch{op: "add", …}`) into map literals with quoted keys, which the evaluator reads.
 * Strings are left alone.
 */
export function messagesAsMaps(expr: string): string {
  let out = "";
  // For each open brace: whether it opened a message (its field names get quoted).
  const braces: boolean[] = [];
  let expectField = false;
  for (let i = 0; i < expr.length;) {
    const ch = expr[i] as string;
    if (ch === '"' || ch === "'") {
      const triple = expr.startsWith(ch.repeat(3), i);
      const q = triple ? ch.repeat(3) : ch;
      let j = i + q.length;
      while (j < expr.length && !expr.startsWith(q, j)) j += expr[j] === "\\" ? 2 : 1;
      out += expr.slice(i, j + q.length);
      i = j + q.length;
      expectField = false;
      continue;
    }
    const m = /^(?:JSONPatch|Object(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\{/.exec(expr.slice(i));
    const prev = out.trimEnd().at(-1) ?? "";
    if (m && !/[A-Za-z0-9_.]/.test(prev)) {
      out += "{";
      braces.push(true);
      i += m[0].length;
      expectField = true;
      continue;
    }
    if (expectField) {
      const f = /^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*):/.exec(expr.slice(i));
      if (f) {
        out += `${f[1] ?? ""}"${f[2] ?? ""}"${f[3] ?? ""}:`;
        i += f[0].length;
        expectField = false;
        continue;
      }
    }
    if (ch === "{") braces.push(false);
    else if (ch === "}") braces.pop();
    else if (ch === "," && braces.at(-1) === true) expectField = true;
    if (!/\s/.test(ch) && ch !== ",") expectField = false;
    out += ch;
    i++;
  }
  return out;
}

function compile(expression: string, minor: KubernetesMinor): Program {
  const celGo = behaviourOf(minor).celGo;
  const key = `${celGo}\u0000${expression}`;
  const cached = programs.get(key);
  if (typeof cached === "string") throw new Undecided(cached);
  if (cached) return cached;
  const fail = (why: string): never => {
    programs.set(key, why);
    throw new Undecided(why);
  };
  if (/\bauthorizer\b/.test(expression))
    fail("uses authorizer, which needs the cluster's authorizer");
  try {
    const text = messagesAsMaps(expression);
    const parsed = environment.parse(text);
    const folded = leftFoldedRelations(text, (parsed as unknown as { ast: unknown }).ast);
    const program = folded ? environment.parse(folded.text) : parsed;
    const notModelled = goSemantics((program as unknown as { ast: unknown }).ast, celGo);
    if (notModelled !== undefined) fail(notModelled);
    const checked = program.check();
    if (!checked.valid) fail(`this evaluator cannot compile it (${firstLine(checked.error)})`);
    const run: Program = (vars) => program(vars);
    programs.set(key, run);
    return run;
  } catch (e) {
    if (e instanceof Undecided) throw e;
    return fail(`this evaluator cannot compile it (${firstLine(e)})`);
  }
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split("\n")[0] ?? m;
}

/** A CEL value back to JSON (bigint → number, Maps → objects). */
function fromCel(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) o[String(k)] = fromCel(x);
    return o;
  }
  if (Array.isArray(v)) return v.map(fromCel);
  if (v !== null && typeof v === "object") {
    if ("valueOf" in v && typeof v.valueOf === "function") {
      const p: unknown = v.valueOf();
      if (p !== v && (typeof p !== "object" || p === null)) return fromCel(p);
    }
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = fromCel(x);
    return o;
  }
  return v;
}

/** What a policy sees besides the request. */
export interface PolicyInputs {
  readonly request: AdmissionRequest;
  /** The object the policy sees (after earlier mutations), null for DELETE. */
  readonly object: JsonObject | null;
  /** The param object, null when the policy has no paramKind (or none was found and Allow). */
  readonly params: JsonObject | null;
  /** The request's namespace object, null for a cluster-scoped request. */
  readonly namespaceObject: JsonObject | null;
  /**
   * True when the namespace object is known by its name and labels only (the case gave no
   * namespaceObject): a policy reading anything else of it is undecided.
   */
  readonly namespacePartial?: boolean;
  /** The minor whose apiserver is reproduced: its cel-go release (default: the newest). */
  readonly minor?: KubernetesMinor;
}

/** Whether a policy reads more of namespaceObject than its name and labels. */
function readsMoreOfNamespace(spec: unknown): boolean {
  if (spec === null || typeof spec !== "object") return false;
  let reads = readsMore.get(spec);
  if (reads === undefined) {
    reads = /\bnamespaceObject\b(?!\s*\.\s*metadata\s*\.\s*(?:labels|name)\b)/.test(
      JSON.stringify(spec),
    );
    readsMore.set(spec, reads);
  }
  return reads;
}

/** readsMoreOfNamespace by policy spec: a replay evaluates one policy for thousands of requests. */
const readsMore = new WeakMap<object, boolean>();

/**
 * The CEL values of the objects and requests a policy sees, made once per object: a replay
 * evaluates several policies, before and after an edit, on each request. The values are only
 * read by the evaluator.
 */
const celValues = new WeakMap<object, unknown>();

function celValueOf(o: JsonObject | null): unknown {
  if (o === null) return toCelValue(null);
  let v = celValues.get(o);
  if (v === undefined) {
    v = toCelValue(o);
    celValues.set(o, v);
  }
  return v;
}

function celRequestOf(r: AdmissionRequest): unknown {
  let v = celValues.get(r);
  if (v === undefined) {
    v = celRequest(r, r.kind, { group: r.group, version: r.version, resource: r.resource });
    celValues.set(r, v);
  }
  return v;
}

const PARTIAL_NAMESPACE =
  "reads the namespace object, known here by its name and labels only (give the case's namespaceObject)";

interface PolicySpecLike {
  failurePolicy?: string;
  variables?: ReadonlyArray<{ name: string; expression: string }>;
}

function bindVariables(
  spec: PolicySpecLike,
  inputs: PolicyInputs,
): { vars: Record<string, unknown>; errors: Map<string, string> } {
  const r = inputs.request;
  const vars: Record<string, unknown> = {
    object: celValueOf(inputs.object),
    oldObject: celValueOf(r.oldObject ?? null),
    request: celRequestOf(r),
    params: celValueOf(inputs.params),
    namespaceObject: celValueOf(inputs.namespaceObject),
  };
  const variables: Record<string, unknown> = {};
  const errors = new Map<string, string>();
  vars.variables = variables;
  for (const v of spec.variables ?? []) {
    const program = compile(v.expression, inputs.minor ?? NEWEST_KUBERNETES_MINOR);
    try {
      variables[v.name] = program(vars);
    } catch (e) {
      errors.set(v.name, firstLine(e));
    }
  }
  return { vars, errors };
}

/** Runs one expression: its value, or the error the apiserver would report. */
function run(
  expression: string,
  vars: Record<string, unknown>,
  variableErrors: ReadonlyMap<string, string>,
  minor: KubernetesMinor | undefined,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const program = compile(expression, minor ?? NEWEST_KUBERNETES_MINOR);
  for (const [name, error] of variableErrors)
    if (new RegExp(`\\bvariables\\s*\\.\\s*${name}\\b`).test(expression))
      return { ok: false, error: `composited variable "${name}" fails to evaluate: ${error}` };
  try {
    const value = program(vars);
    if (value instanceof Promise) throw new Undecided("evaluation was asynchronous");
    return { ok: true, value };
  } catch (e) {
    if (e instanceof Undecided) throw e;
    return { ok: false, error: firstLine(e) };
  }
}

/** One binding's evaluation of a ValidatingAdmissionPolicy. */
export type ValidatingEvaluation =
  | {
      readonly decided: true;
      readonly result: PolicyResult;
      /** The apiserver's denial, `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: …`. */
      readonly denial: string | undefined;
      readonly warnings: readonly string[];
      /** Audit annotations, keys without the `<policy>/` prefix. */
      readonly auditAnnotations: Readonly<Record<string, string>>;
      /** The failed validations' messages, in order. */
      readonly failures: readonly string[];
    }
  | { readonly decided: false; readonly reason: string };

interface ValidatingPolicyLike {
  metadata?: { name?: string };
  spec?: PolicySpecLike & {
    validations?: ReadonlyArray<{
      expression: string;
      message?: string;
      messageExpression?: string;
    }>;
    auditAnnotations?: ReadonlyArray<{ key: string; valueExpression: string }>;
  };
}

/** Evaluates a ValidatingAdmissionPolicy through one binding (matchConditions already passed). */
export function evaluateValidating(
  policy: ValidatingPolicyLike,
  binding: { metadata?: { name?: string }; spec?: { validationActions?: readonly string[] } },
  inputs: PolicyInputs,
): ValidatingEvaluation {
  const spec = policy.spec ?? {};
  const policyName = policy.metadata?.name ?? "";
  const bindingName = binding.metadata?.name ?? "";
  const fail = (spec.failurePolicy ?? "Fail") === "Fail";
  if (inputs.namespacePartial && inputs.namespaceObject && readsMoreOfNamespace(spec))
    return { decided: false, reason: PARTIAL_NAMESPACE };
  try {
    const { vars, errors } = bindVariables(spec, inputs);
    const failures: string[] = [];
    for (const v of spec.validations ?? []) {
      const r = run(v.expression, vars, errors, inputs.minor);
      if (!r.ok) {
        if (fail) failures.push(`expression '${v.expression}' resulted in error: ${r.error}`);
        continue;
      }
      if (r.value === true) continue;
      let message = "";
      if (v.messageExpression) {
        try {
          const m = run(v.messageExpression, vars, errors, inputs.minor);
          if (m.ok && typeof m.value === "string" && !m.value.includes("\n"))
            message = m.value.trim();
        } catch (e) {
          if (!(e instanceof Undecided)) throw e;
          // A messageExpression this evaluator cannot run: the denial holds, its words do not.
          message = "";
          if (!v.message) throw e;
        }
      }
      if (message === "" && v.message) message = v.message.trim();
      if (message === "") message = `failed expression: ${v.expression.trim()}`;
      failures.push(message);
    }
    const auditAnnotations: Record<string, string> = {};
    for (const a of spec.auditAnnotations ?? []) {
      const r = run(a.valueExpression, vars, errors, inputs.minor);
      if (!r.ok) {
        if (fail)
          failures.push(`valueExpression '${a.valueExpression}' resulted in error: ${r.error}`);
        continue;
      }
      if (typeof r.value === "string") auditAnnotations[a.key] = r.value;
    }
    const actions = binding.spec?.validationActions ?? [];
    const first = failures[0];
    const warnings =
      first === undefined || !actions.includes("Warn")
        ? []
        : failures.map(
            (m) =>
              `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${m}`,
          );
    const result: PolicyResult =
      first === undefined
        ? "allowed"
        : actions.includes("Deny")
          ? "denied"
          : actions.includes("Warn")
            ? "warned"
            : actions.includes("Audit")
              ? "audited"
              : "allowed";
    return {
      decided: true,
      result,
      denial:
        result === "denied"
          ? `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${first ?? ""}`
          : undefined,
      warnings,
      auditAnnotations,
      failures,
    };
  } catch (e) {
    if (e instanceof Undecided) return { decided: false, reason: e.message };
    throw e;
  }
}

/** A binding evaluated once per param object: the worst decision stands. */
export function combineEvaluations(evals: ValidatingEvaluation[]): ValidatingEvaluation {
  const undecided = evals.find((e) => !e.decided);
  if (undecided) return undecided;
  const rank: Record<PolicyResult, number> = { allowed: 0, audited: 1, warned: 2, denied: 3 };
  let best: ValidatingEvaluation | undefined;
  const warnings: string[] = [];
  const failures: string[] = [];
  const audit: Record<string, string> = {};
  for (const e of evals) {
    if (!e.decided) continue;
    warnings.push(...e.warnings);
    failures.push(...e.failures);
    Object.assign(audit, e.auditAnnotations);
    if (!best || (best.decided && rank[e.result] > rank[best.result])) best = e;
  }
  if (!best || !best.decided) return { decided: false, reason: "not evaluated" };
  return { ...best, warnings, failures, auditAnnotations: audit };
}

/** A MutatingAdmissionPolicy's effect on the object. */
export type MutatingEvaluation =
  | { readonly decided: true; readonly object: JsonObject; readonly error: string | undefined }
  | { readonly decided: false; readonly reason: string };

interface MutatingPolicyLike {
  spec?: PolicySpecLike & {
    mutations?: ReadonlyArray<{
      patchType?: string;
      jsonPatch?: { expression?: string };
      applyConfiguration?: { expression?: string };
    }>;
  };
}

const clone = <T>(v: T): T => structuredClone(v);

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new Error(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

type Container = Record<string, unknown> | unknown[];

function parentOf(doc: unknown, segs: string[]): { parent: Container; key: string } {
  let cur: unknown = doc;
  for (const s of segs.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (cur !== null && typeof cur === "object") cur = (cur as Record<string, unknown>)[s];
    else cur = undefined;
    if (cur === undefined || cur === null || typeof cur !== "object")
      throw new Error(`path ${segs.join("/")} does not exist`);
  }
  return { parent: cur as Container, key: segs.at(-1) ?? "" };
}

function getAt(doc: unknown, segs: string[]): unknown {
  let cur: unknown = doc;
  for (const s of segs) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (cur !== null && typeof cur === "object") cur = (cur as Record<string, unknown>)[s];
    else return undefined;
  }
  return cur;
}

/** RFC 6902 JSON Patch (what the apiserver applies for patchType JSONPatch). */
export function applyJsonPatch(doc: JsonObject, ops: readonly unknown[]): JsonObject {
  let out: unknown = clone(doc);
  for (const raw of ops) {
    const op = raw as { op?: string; path?: string; from?: string; value?: unknown };
    const segs = pointer(op.path ?? "");
    const put = (value: unknown, insert: boolean) => {
      if (segs.length === 0) {
        out = value;
        return;
      }
      const { parent, key } = parentOf(out, segs);
      if (Array.isArray(parent)) {
        const i = key === "-" ? parent.length : Number(key);
        if (!Number.isInteger(i) || i < 0 || i > parent.length)
          throw new Error(`index ${key} is out of bounds`);
        if (insert) parent.splice(i, 0, value);
        else parent[i] = value;
      } else {
        if (!insert && !(key in parent)) throw new Error(`path ${op.path ?? ""} does not exist`);
        parent[key] = value;
      }
    };
    const remove = (s: string[]) => {
      const { parent, key } = parentOf(out, s);
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else {
        if (!(key in parent)) throw new Error(`path /${s.join("/")} does not exist`);
        delete parent[key];
      }
    };
    switch (op.op) {
      case "add":
        put(clone(op.value), true);
        break;
      case "replace":
        put(clone(op.value), false);
        break;
      case "remove":
        remove(segs);
        break;
      case "copy":
        put(clone(getAt(out, pointer(op.from ?? ""))), true);
        break;
      case "move": {
        const v = getAt(out, pointer(op.from ?? ""));
        remove(pointer(op.from ?? ""));
        put(v, true);
        break;
      }
      case "test":
        if (JSON.stringify(getAt(out, segs)) !== JSON.stringify(op.value))
          throw new Error(`test failed at ${op.path ?? ""}`);
        break;
      default:
        throw new Error(`unsupported JSON Patch op ${JSON.stringify(op.op)}`);
    }
  }
  return out as JsonObject;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Server-side apply of an ApplyConfiguration, for the common shapes: maps merge field by field,
 * a list whose items all carry `name` merges by name (containers, volumes, env, ports…), any
 * other list is replaced. Fields the schema marks otherwise (other list keys, atomic maps) are
 * not modelled.
 */
function applyConfiguration(base: unknown, patch: unknown): unknown {
  if (isMap(base) && isMap(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(patch))
      out[k] = k in base ? applyConfiguration(base[k], v) : v;
    return out;
  }
  const named = (l: unknown[]) => l.every((x) => isMap(x) && typeof x.name === "string");
  if (Array.isArray(base) && Array.isArray(patch) && named(base) && named(patch)) {
    const out = [...base] as Record<string, unknown>[];
    for (const item of patch as Record<string, unknown>[]) {
      const i = out.findIndex((x) => x.name === item.name);
      if (i >= 0) out[i] = applyConfiguration(out[i], item) as Record<string, unknown>;
      else out.push(item);
    }
    return out;
  }
  return patch;
}

/** Applies a MutatingAdmissionPolicy's mutations, in order, to the object. */
export function evaluateMutating(
  policy: MutatingPolicyLike,
  inputs: PolicyInputs,
): MutatingEvaluation {
  const spec = policy.spec ?? {};
  if (inputs.namespacePartial && inputs.namespaceObject && readsMoreOfNamespace(spec))
    return { decided: false, reason: PARTIAL_NAMESPACE };
  try {
    let object: JsonObject = inputs.object ?? {};
    for (const m of spec.mutations ?? []) {
      const current = { ...inputs, object };
      const { vars, errors } = bindVariables(spec, current);
      const expression =
        m.patchType === "JSONPatch" ? m.jsonPatch?.expression : m.applyConfiguration?.expression;
      if (expression === undefined) continue;
      const r = run(expression, vars, errors, inputs.minor);
      if (!r.ok) return { decided: true, object, error: r.error };
      const value = fromCel(r.value);
      try {
        if (m.patchType === "JSONPatch") {
          if (!Array.isArray(value))
            return { decided: true, object, error: "JSONPatch expression did not return a list" };
          object = applyJsonPatch(object, value);
        } else object = applyConfiguration(object, value) as JsonObject;
      } catch (e) {
        return { decided: true, object, error: firstLine(e) };
      }
    }
    return { decided: true, object, error: undefined };
  } catch (e) {
    if (e instanceof Undecided) return { decided: false, reason: e.message };
    throw e;
  }
}
