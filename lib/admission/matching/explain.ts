/** Human sentences for skip reasons and failures; kept apart so predict stays allocation-light. */
import type { RequirementMismatch } from "@/lib/admission/model/selectors";
import { selectorSkipDetail, type SkipReason } from "@/lib/admission/matching/match";
import type { RuleMismatch } from "@/lib/admission/model/rule-matcher";
import { describeResource, type AdmissionRequest } from "@/lib/admission/model/request";

function mismatchText(ms: readonly RequirementMismatch[]): string {
  return ms.map((m) => m.message).join("; ");
}

function side(v: readonly RequirementMismatch[] | "absent" | "no-metadata", what: string): string {
  if (v === "absent") return `there is no ${what}`;
  if (v === "no-metadata")
    return `the ${what} has no metadata (e.g. connect options), so it never matches`;
  return `${what}: ${mismatchText(v)}`;
}

/** One sentence explaining a skip. `rules` is the per-rule detail when already computed. */
export function describeSkipReason(
  reason: SkipReason,
  request: AdmissionRequest,
  rules?: readonly RuleMismatch[],
): string {
  switch (reason.code) {
    case "excluded":
      return reason.message;
    case "rules": {
      const res = describeResource(request, request.subresource);
      const detail = rules && rules.length > 0 ? `: ${rules.map((r) => r.message).join("; ")}` : "";
      return `no rule matches ${request.operation} ${res}${detail}`;
    }
    case "exclude-rule":
      return `excludeResourceRules[${reason.ruleIndex}] matches the request`;
    case "namespace-selector":
      return `namespaceSelector {${reason.selector}} does not match namespace ${reason.namespace}: ${mismatchText(selectorSkipDetail(reason).namespace ?? [])}`;
    case "object-selector": {
      const d = selectorSkipDetail(reason);
      return `objectSelector {${reason.selector}} matches neither the object nor the old object (${side(d.object ?? "absent", "object")}; ${side(d.oldObject ?? "absent", "old object")})`;
    }
    case "match-condition-false":
      return `matchCondition ${reason.condition} evaluated to false`;
    case "match-condition-error-ignored":
      return `matchConditions failed to evaluate (${reason.errors.map((e) => `${e.condition}: ${e.message}`).join(", ")}) and failurePolicy is Ignore`;
    case "configuration-error-ignored":
      return `${reason.message}; failurePolicy is Ignore, so it is skipped`;
    case "binding":
      return `the binding's matchResources exclude it: ${describeSkipReason(reason.inner, request, rules)}`;
    case "policy-missing":
      return `the binding names policy ${reason.policyName}, which does not exist`;
    case "params-not-found":
      return `paramRef finds no ${reason.where} and parameterNotFoundAction is Allow, so the binding is not evaluated`;
    case "not-reached":
      return `not reached: the request already failed at ${reason.failedAt}`;
    case "match-failed":
      return `not called: matching ${reason.failedAt} failed, and the apiserver decides every validating webhook before calling any, so when one match fails it calls none`;
  }
}

/** A JSON-friendly form of a skip reason, with selector detail expanded. */
export function serializeSkipReason(reason: SkipReason): object {
  if (reason.code === "namespace-selector" || reason.code === "object-selector") {
    const { compiled: _compiled, ...rest } = reason;
    return { ...rest, ...selectorSkipDetail(reason) };
  }
  if (reason.code === "binding")
    return { code: "binding", inner: serializeSkipReason(reason.inner) };
  return reason;
}
