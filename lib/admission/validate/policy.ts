/**
 * Validation of ValidatingAdmissionPolicy(+Binding) and MutatingAdmissionPolicy(+Binding)
 * (k8s.io/kubernetes pkg/apis/admissionregistration/validation, v1.37.2; the same in v1.35.4 and
 * v1.36.3 but for what MinorBehaviour names), on the defaulted object.
 */
import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type { CelDecl } from "./cel";
import { declaredVariableType } from "./cel";
import type { FieldError } from "./field-error";
import { duplicate, forbidden, invalid, invalidJson, notSupported, required } from "./field-error";
import { FieldPath } from "./field-path";
import { parseGroupVersion } from "./group-version";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  nameIsDNSSubdomain,
  validateQualifiedName,
} from "./dns";
import type { JsonObject, JsonValue } from "./json";
import { deepEqual, has, obj, objList, optStr, str, strList } from "./json";
import { validateLabelSelector } from "./label-selector";
import { celErrors, trimSpace, validateMatchConditions } from "./match-conditions";
import { validateObjectMeta } from "./object-meta";
import { supportedMutatingOperations, validateNamedRuleWithOperations } from "./rules";

const supportedFailurePolicies = ["Fail", "Ignore"];
const supportedMatchPolicies = ["Equivalent", "Exact"];
const supportedReasons = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
const supportedPatchTypes = ["ApplyConfiguration", "JSONPatch"];
const supportedReinvocationPolicies = ["IfNeeded", "Never"];
const validValidationActions = ["Audit", "Deny", "Warn"];
const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;

const celReserved = new Set(
  "true false null in as break const continue else for function if import let loop package namespace return var void while".split(
    " ",
  ),
);

/** isCELIdentifier. */
function isCELIdentifier(name: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !celReserved.has(name);
}

/** Update ratcheting for policies: matchConditions are skipped when they and paramKind are unchanged. */
export interface PolicyValidationOptions {
  ignoreMatchConditions: boolean;
  /** The minor whose apiserver is reproduced (default: the newest). */
  minor?: KubernetesMinor;
}

function validateFailurePolicy(spec: JsonObject | undefined, p: FieldPath): FieldError[] {
  const fp = optStr(spec, "failurePolicy");
  if (fp === undefined) return [required(p)];
  if (!supportedFailurePolicies.includes(fp))
    return [notSupported(p, fp, supportedFailurePolicies)];
  return [];
}

/** validateParamKind. */
function validateParamKind(pk: JsonObject, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const av = str(pk, "apiVersion");
  const ap = p.child("apiVersion");
  if (av.length === 0) errs.push(required(ap));
  else {
    const gv = parseGroupVersion(av);
    if ("error" in gv) errs.push(invalid(ap, av, gv.error));
    else {
      if (gv.group.length > 0) {
        const e = isDNS1123Subdomain(gv.group);
        if (e.length) errs.push(invalid(ap, gv.group, e.join(",")));
      }
      if (gv.version.length === 0) errs.push(invalid(ap, av, "version must be specified"));
      else {
        const e = isDNS1035Label(gv.version);
        if (e.length) errs.push(invalid(ap, gv.version, e.join(",")));
      }
    }
  }
  const kind = str(pk, "kind");
  if (kind.length === 0) errs.push(required(p.child("kind")));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length)
      errs.push(
        invalid(
          p.child("kind"),
          kind,
          "may have mixed case, but should otherwise match: " + e.join(","),
        ),
      );
  }
  return errs;
}

/** validateMatchResources (selectors always validated strictly). */
function validateMatchResources(mc: JsonObject, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mp = optStr(mc, "matchPolicy");
  if (mp === undefined) errs.push(required(p.child("matchPolicy")));
  else if (!supportedMatchPolicies.includes(mp))
    errs.push(notSupported(p.child("matchPolicy"), mp, supportedMatchPolicies));
  for (const k of ["namespaceSelector", "objectSelector"] as const) {
    const s = obj(mc, k);
    if (!s) errs.push(required(p.child(k)));
    else errs.push(...validateLabelSelector(s, {}, p.child(k)));
  }
  objList(mc, "resourceRules").forEach((r, i) =>
    errs.push(...validateNamedRuleWithOperations(r, p.child("resourceRules").at(i))),
  );
  objList(mc, "excludeResourceRules").forEach((r, i) =>
    errs.push(...validateNamedRuleWithOperations(r, p.child("excludeResourceRules").at(i))),
  );
  return errs;
}

/** The matchConstraints block shared by VAP and MAP. */
function validateMatchConstraints(
  spec: JsonObject | undefined,
  p: FieldPath,
  mutating: boolean,
): FieldError[] {
  const mc = obj(spec, "matchConstraints");
  if (!mc) return [required(p)];
  const errs = validateMatchResources(mc, p);
  const rules = objList(mc, "resourceRules");
  if (rules.length === 0) errs.push(required(p.child("resourceRules")));
  if (mutating)
    errs.push(...mutatingOperationErrors(rules, p.child("resourceRules", "operations")));
  return errs;
}

function mutatingOperationErrors(rules: JsonObject[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const r of rules)
    for (const op of strList(r, "operations"))
      if (!supportedMutatingOperations.includes(op))
        errs.push(notSupported(p, op, supportedMutatingOperations));
  return errs;
}

/** validateVariable. */
function validateVariable(v: JsonObject, decl: CelDecl, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(v, "name");
  if (trimSpace(name) === "") errs.push(required(p.child("name"), "name is not specified"));
  else if (!isCELIdentifier(name))
    errs.push(invalid(p.child("name"), name, "must be a valid CEL identifier"));
  const expr = str(v, "expression");
  if (trimSpace(expr) === "")
    errs.push(required(p.child("expression"), "expression is not specified"));
  else errs.push(...celErrors(expr, expr, decl, "any", p.child("expression")));
  return errs;
}

function hasNewlines(s: string): boolean {
  return /[\n\r]/.test(s);
}

/** validateValidation. */
function validateValidation(
  v: JsonObject,
  decl: CelDecl,
  msgDecl: CelDecl,
  p: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const expr = str(v, "expression");
  const msg = str(v, "message");
  const msgExpr = str(v, "messageExpression");
  if (trimSpace(expr).length === 0)
    errs.push(required(p.child("expression"), "expression is not specified"));
  else errs.push(...celErrors(expr, expr, decl, "bool", p.child("expression")));
  if (msgExpr.length > 0 && trimSpace(msgExpr).length === 0)
    errs.push(invalid(p.child("messageExpression"), msgExpr, "must be non-empty if specified"));
  else if (trimSpace(msgExpr).length !== 0)
    errs.push(...celErrors(msgExpr, msgExpr, msgDecl, "string", p.child("messageExpression")));
  const tm = trimSpace(msg);
  if (msg.length > 0 && tm.length === 0)
    errs.push(invalid(p.child("message"), msg, "must be non-empty if specified"));
  else if (hasNewlines(tm))
    errs.push(invalid(p.child("message"), msg, "must not contain line breaks"));
  const reason = optStr(v, "reason");
  if (reason !== undefined && !supportedReasons.includes(reason))
    errs.push(notSupported(p.child("reason"), reason, supportedReasons));
  return errs;
}

/** validateAuditAnnotation. */
function validateAuditAnnotation(
  name: string,
  a: JsonObject,
  decl: CelDecl,
  p: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a, "key");
  if (name.length !== 0) errs.push(...validateQualifiedName(name + "/" + key, p.child("key")));
  else errs.push(invalid(p.child("key"), key, "requires metadata.name be non-empty"));
  const ve = str(a, "valueExpression");
  const tv = trimSpace(ve);
  if (tv.length === 0)
    errs.push(required(p.child("valueExpression"), "valueExpression is not specified"));
  else if (new TextEncoder().encode(tv).length > maxAuditAnnotationValueExpressionLength)
    errs.push(
      required(
        p.child("valueExpression"),
        `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`,
      ),
    );
  else errs.push(...celErrors(tv, ve, decl, "string-or-null", p.child("valueExpression")));
  return errs;
}

/**
 * spec.variables validated in order, as the composition compiler declares them: each expression
 * sees the variables before it (not itself, not later ones), each declared with its expression's
 * type; a variable whose expression is blank is never compiled, so never declared. Returns the
 * errors and the variables every later expression sees.
 */
function validateVariables(
  spec: JsonObject | undefined,
  params: boolean,
  p: FieldPath,
): { errs: FieldError[]; variables: Record<string, string | null> } {
  const errs: FieldError[] = [];
  const variables: Record<string, string | null> = {};
  objList(spec, "variables").forEach((v, i) => {
    const decl: CelDecl = { params, authorizer: true, variables: { ...variables } };
    errs.push(...validateVariable(v, decl, p.at(i)));
    const expr = str(v, "expression");
    if (trimSpace(expr) !== "") variables[str(v, "name")] = declaredVariableType(expr, decl);
  });
  return { errs, variables };
}

/**
 * What both policy kinds validate first, in the apiserver's order: metadata, then the spec's
 * failurePolicy, paramKind, matchConstraints (`mutating`: MutatingAdmissionPolicy's), matchConditions
 * and variables. Returns the errors, whether params are declared, and the variables later
 * expressions see.
 */
function validatePolicyHead(
  meta: JsonObject | undefined,
  spec: JsonObject | undefined,
  p: FieldPath,
  opts: PolicyValidationOptions,
  mutating: boolean,
): { errs: FieldError[]; params: boolean; variables: Record<string, string | null> } {
  const errs = validateObjectMeta(meta, opts.minor);
  errs.push(...validateFailurePolicy(spec, p.child("failurePolicy")));
  const pk = obj(spec, "paramKind");
  if (pk) errs.push(...validateParamKind(pk, p.child("paramKind")));
  errs.push(...validateMatchConstraints(spec, p.child("matchConstraints"), mutating));
  const params = pk !== undefined;
  if (!opts.ignoreMatchConditions)
    errs.push(
      ...validateMatchConditions(
        objList(spec, "matchConditions"),
        params,
        p.child("matchConditions"),
      ),
    );
  const vars = validateVariables(spec, params, p.child("variables"));
  errs.push(...vars.errs);
  return { errs, params, variables: vars.variables };
}

/** validateValidatingAdmissionPolicy. */
export function validateValidatingAdmissionPolicy(
  o: JsonObject,
  opts: PolicyValidationOptions,
): FieldError[] {
  const meta = obj(o, "metadata");
  const spec = obj(o, "spec");
  const p = FieldPath.root("spec");
  const { errs, params, variables } = validatePolicyHead(meta, spec, p, opts, false);
  const composition = objList(spec, "variables").length > 0 ? variables : undefined;
  const decl: CelDecl = { params, authorizer: true, variables: composition };
  const validations = objList(spec, "validations");
  const annotations = objList(spec, "auditAnnotations");
  if (validations.length === 0 && annotations.length === 0) {
    const m = "validations or auditAnnotations must contain at least one item";
    errs.push(required(p.child("validations"), m), required(p.child("auditAnnotations"), m));
    return errs;
  }
  // messageExpression is compiled without the authorizer, and with params only when paramKind is set.
  const msgDecl: CelDecl = { params, authorizer: false, variables: composition };
  validations.forEach((v, i) =>
    errs.push(...validateValidation(v, decl, msgDecl, p.child("validations").at(i))),
  );
  if (has(spec, "auditAnnotations")) {
    if (annotations.length > maxAuditAnnotations)
      errs.push(
        invalidJson(
          p.child("auditAnnotations"),
          // Go prints the internal type, which has no JSON tags: its field names.
          annotations.map((a) => ({
            Key: str(a, "key"),
            ValueExpression: str(a, "valueExpression"),
          })),
          `must not have more than ${maxAuditAnnotations} auditAnnotations`,
        ),
      );
    const keys = new Set<string>();
    const name = str(meta, "name");
    annotations.forEach((a, i) => {
      const ap = p.child("auditAnnotations").at(i);
      errs.push(...validateAuditAnnotation(name, a, decl, ap));
      const key = str(a, "key");
      if (keys.has(key)) errs.push(duplicate(ap.child("key"), key));
      keys.add(key);
    });
  }
  return errs;
}

/** validateMutatingAdmissionPolicy. */
export function validateMutatingAdmissionPolicy(
  o: JsonObject,
  opts: PolicyValidationOptions,
): FieldError[] {
  const spec = obj(o, "spec");
  const p = FieldPath.root("spec");
  const { errs, params, variables } = validatePolicyHead(obj(o, "metadata"), spec, p, opts, true);
  // MAP always uses the composition compiler, so `variables` is declared even when empty.
  const decl: CelDecl = { params, authorizer: true, variables };
  const mutations = objList(spec, "mutations");
  if (mutations.length === 0)
    errs.push(required(p.child("mutations"), "mutations must contain at least one item"));
  mutations.forEach((m, i) => errs.push(...validateMutation(m, decl, p.child("mutations").at(i))));
  const rp = str(spec, "reinvocationPolicy");
  if (rp.length === 0) errs.push(required(p.child("reinvocationPolicy")));
  else if (!supportedReinvocationPolicies.includes(rp))
    errs.push(notSupported(p.child("reinvocationPolicy"), rp, supportedReinvocationPolicies));
  return errs;
}

/**
 * validateMutation. cel-js cannot parse message construction (`Object{...}`, `JSONPatch{...}`),
 * so those expressions are only checked for emptiness; others (e.g. `[]`, which the apiserver
 * rejects as list(dyn)) are compiled.
 */
function patchExpression(
  expr: string,
  decl: CelDecl,
  ret: "jsonpatch" | "object",
  p: FieldPath,
): FieldError[] {
  const e = trimSpace(expr);
  if (e.length === 0) return [required(p)];
  return celErrors(e, e, decl, ret, p);
}

function validateMutation(m: JsonObject, decl: CelDecl, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const pt = str(m, "patchType");
  const ac = obj(m, "applyConfiguration");
  const jp = obj(m, "jsonPatch");
  if (pt.length === 0) {
    errs.push(required(p.child("patchType")));
    return errs;
  }
  if (pt === "JSONPatch") {
    if (!jp)
      errs.push(required(p.child("jsonPatch"), "must be specified when patchType is JSONPatch"));
    else
      errs.push(
        ...patchExpression(
          str(jp, "expression"),
          decl,
          "jsonpatch",
          p.child("jsonPatch", "expression"),
        ),
      );
    if (ac)
      errs.push(
        invalid(
          p.child("applyConfiguration"),
          "{applyConfiguration}",
          "must not be specified when patchType is JSONPatch",
        ),
      );
  } else if (pt === "ApplyConfiguration") {
    if (!ac)
      errs.push(
        required(
          p.child("applyConfiguration"),
          "must be specified when patchType is ApplyConfiguration",
        ),
      );
    else
      errs.push(
        ...patchExpression(
          str(ac, "expression"),
          decl,
          "object",
          p.child("applyConfiguration", "expression"),
        ),
      );
    if (jp)
      errs.push(
        invalid(
          p.child("jsonPatch"),
          "{jsonPatch}",
          "must not be specified when patchType is ApplyConfiguration",
        ),
      );
  } else {
    errs.push(notSupported(p.child("patchType"), pt, supportedPatchTypes));
  }
  return errs;
}

/** validateParamRef. */
function validateParamRef(pr: JsonObject | undefined, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!pr) return errs;
  const name = str(pr, "name");
  const sel = obj(pr, "selector");
  if (name.length > 0) {
    for (const m of isPathSegmentName(name)) errs.push(invalid(p.child("name"), name, m));
    if (sel) errs.push(forbidden(p.child("name"), "name and selector are mutually exclusive"));
  }
  if (sel) {
    errs.push(...validateLabelSelector(sel, {}, p.child("selector")));
    if (name.length > 0)
      errs.push(forbidden(p.child("selector"), "name and selector are mutually exclusive"));
  }
  if (name.length === 0 && !sel)
    errs.push(required(p, "one of name or selector must be specified"));
  const pnfa = optStr(pr, "parameterNotFoundAction");
  if (pnfa === undefined || pnfa.length === 0)
    errs.push(required(p.child("parameterNotFoundAction")));
  else if (pnfa !== "Deny" && pnfa !== "Allow")
    errs.push(notSupported(p.child("parameterNotFoundAction"), pnfa, ["Deny", "Allow"]));
  return errs;
}

function validatePolicyName(
  spec: JsonObject | undefined,
  p: FieldPath,
  covered: boolean,
): FieldError[] {
  const name = str(spec, "policyName");
  if (name.length === 0) return [{ ...required(p), coveredByDeclarative: covered }];
  return nameIsDNSSubdomain(name, false).map((m) => invalid(p, name, m));
}

/** validateValidationActions. */
function validateValidationActions(va: string[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  va.forEach((a, i) => {
    if (!validValidationActions.includes(a))
      errs.push(notSupported(p.at(i), a, validValidationActions));
    if (seen.has(a)) errs.push(duplicate(p.at(i), a, false));
    seen.add(a);
  });
  if (seen.has("Deny") && seen.has("Warn"))
    errs.push(
      invalidJson(
        p,
        va,
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
      ),
    );
  if (seen.size === 0)
    errs.push({
      ...required(p, "at least one validation action is required"),
      coveredByDeclarative: true,
    });
  return errs;
}

/**
 * validateValidatingAdmissionPolicyBinding, then, where `minor` enforces them
 * (MinorBehaviour.declarativeValidation: 1.37 with DeclarativeValidationBeta on), the declarative
 * rules: spec.policyName and spec.validationActions are required there, the handwritten errors
 * they cover are dropped and the declarative ones appended last. Before 1.37 the handwritten
 * errors are the answer.
 */
export function validateValidatingAdmissionPolicyBinding(
  o: JsonObject,
  minor: KubernetesMinor = NEWEST_KUBERNETES_MINOR,
): FieldError[] {
  const errs = validateObjectMeta(obj(o, "metadata"), minor);
  const spec = obj(o, "spec");
  const p = FieldPath.root("spec");
  errs.push(...validatePolicyName(spec, p.child("policyName"), true));
  errs.push(...validateParamRef(obj(spec, "paramRef"), p.child("paramRef")));
  const mr = obj(spec, "matchResources");
  if (mr) errs.push(...validateMatchResources(mr, p.child("matchResources")));
  errs.push(
    ...validateValidationActions(strList(spec, "validationActions"), p.child("validationActions")),
  );
  if (!behaviourOf(minor).declarativeValidation) return errs;
  const out = errs.filter((e) => !e.coveredByDeclarative);
  if (str(spec, "policyName").length === 0) out.push(required(p.child("policyName")));
  if (strList(spec, "validationActions").length === 0)
    out.push(required(p.child("validationActions")));
  return out;
}

/** validateMutatingAdmissionPolicyBinding (no declarative rules for this kind in 1.35 to 1.37). */
export function validateMutatingAdmissionPolicyBinding(
  o: JsonObject,
  minor: KubernetesMinor = NEWEST_KUBERNETES_MINOR,
): FieldError[] {
  const errs = validateObjectMeta(obj(o, "metadata"), minor);
  const spec = obj(o, "spec");
  const p = FieldPath.root("spec");
  errs.push(...validatePolicyName(spec, p.child("policyName"), false));
  errs.push(...validateParamRef(obj(spec, "paramRef"), p.child("paramRef")));
  const mr = obj(spec, "matchResources");
  if (mr) {
    errs.push(...validateMatchResources(mr, p.child("matchResources")));
    errs.push(
      ...mutatingOperationErrors(
        objList(mr, "resourceRules"),
        p.child("matchResources", "resourceRules", "operations"),
      ),
    );
  }
  return errs;
}

/** ignore{Validating,Mutating}AdmissionPolicyMatchConditions. */
export function policyUpdateOptions(newO: JsonObject, oldO: JsonObject): PolicyValidationOptions {
  const ns = obj(newO, "spec");
  const os = obj(oldO, "spec");
  // equality.Semantic.DeepEqual treats an empty list like a missing one.
  const norm = (v: JsonValue | undefined): JsonValue =>
    v === undefined || (Array.isArray(v) && v.length === 0) ? null : v;
  const same = (k: string) => deepEqual(norm(ns?.[k]), norm(os?.[k]));
  return { ignoreMatchConditions: same("paramKind") && same("matchConditions") };
}
