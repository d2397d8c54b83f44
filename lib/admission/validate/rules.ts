import type { FieldError } from "./field-error";
import { duplicate, invalid, invalidJson, notSupported, required } from "./field-error";
import type { FieldPath } from "./field-path";
import { isPathSegmentName } from "./dns";
import type { JsonObject } from "./json";
import { optStr, strList } from "./json";

const validScopes = ["*", "Cluster", "Namespaced"];
/** supportedOperations, sorted as sets.String.List() sorts them. */
const supportedOperations = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
/** supportedMutatingOperations: MutatingAdmissionPolicy may not match DELETE. */
export const supportedMutatingOperations = ["*", "CONNECT", "CREATE", "UPDATE"];

/**
 * validateResources, with the upstream order-dependent quirks kept on purpose:
 * `<res>/*` and `*\/<sub>` only catch entries after the wildcard, and the "`*` with plain
 * resources" flag is overwritten by each entry without a slash, so `["pods","*"]` passes.
 */
export function validateResources(resources: string[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(p));
  const resWithWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  resources.forEach((resSub, i) => {
    if (resSub === "") {
      errs.push(required(p.at(i)));
      return;
    }
    if (resSub === "*/*") hasDoubleWildcard = true;
    if (resSub === "*") hasSingleWildcard = true;
    const slash = resSub.indexOf("/");
    if (slash < 0) {
      hasResourceWithoutSubresource = resSub !== "*";
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resWithWildcardSub.has(res))
      errs.push(invalid(p.at(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub))
      errs.push(invalid(p.at(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === "*") resWithWildcardSub.add(res);
    if (res === "*") subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard)
    errs.push(invalidJson(p, resources, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource)
    errs.push(
      invalidJson(
        p,
        resources,
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  return errs;
}

/** validateResourcesNoSubResources: the v1alpha1 InitializerConfiguration rule. */
export function validateResourcesNoSubResources(resources: string[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(p));
  resources.forEach((r, i) => {
    if (r === "") errs.push(required(p.at(i)));
    if (r.includes("/")) errs.push(invalid(p.at(i), r, "must not specify subresources"));
  });
  if (resources.length > 1 && resources.includes("*"))
    errs.push(invalidJson(p, resources, "if '*' is present, must not specify other resources"));
  return errs;
}

/** validateRule: apiGroups, apiVersions, resources, scope. */
export function validateRule(
  rule: JsonObject,
  p: FieldPath,
  allowSubResource: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const groups = strList(rule, "apiGroups");
  const versions = strList(rule, "apiVersions");
  if (groups.length === 0) errs.push(required(p.child("apiGroups")));
  if (groups.length > 1 && groups.includes("*"))
    errs.push(
      invalidJson(
        p.child("apiGroups"),
        groups,
        "if '*' is present, must not specify other API groups",
      ),
    );
  if (versions.length === 0) errs.push(required(p.child("apiVersions")));
  if (versions.length > 1 && versions.includes("*"))
    errs.push(
      invalidJson(
        p.child("apiVersions"),
        versions,
        "if '*' is present, must not specify other API versions",
      ),
    );
  versions.forEach((v, i) => {
    if (v === "") errs.push(required(p.child("apiVersions").at(i)));
  });
  const resources = strList(rule, "resources");
  errs.push(
    ...(allowSubResource
      ? validateResources(resources, p.child("resources"))
      : validateResourcesNoSubResources(resources, p.child("resources"))),
  );
  const scope = optStr(rule, "scope");
  if (scope !== undefined && !validScopes.includes(scope))
    errs.push(notSupported(p.child("scope"), scope, validScopes));
  return errs;
}

/** validateRuleWithOperations. */
export function validateRuleWithOperations(rule: JsonObject, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strList(rule, "operations");
  if (ops.length === 0) errs.push(required(p.child("operations")));
  if (ops.length > 1 && ops.includes("*"))
    errs.push(
      invalidJson(
        p.child("operations"),
        ops,
        "if '*' is present, must not specify other operations",
      ),
    );
  ops.forEach((op, i) => {
    if (!supportedOperations.includes(op))
      errs.push(notSupported(p.child("operations").at(i), op, supportedOperations));
  });
  errs.push(...validateRule(rule, p, true));
  return errs;
}

/** validateNamedRuleWithOperations: resourceNames, then the rule. */
export function validateNamedRuleWithOperations(rule: JsonObject, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  strList(rule, "resourceNames").forEach((n, i) => {
    const rp = p.child("resourceNames").at(i);
    for (const m of isPathSegmentName(n)) errs.push(invalid(rp, n, m));
    if (seen.has(n)) errs.push(duplicate(rp, n));
    else seen.add(n);
  });
  errs.push(...validateRuleWithOperations(rule, p));
  return errs;
}
