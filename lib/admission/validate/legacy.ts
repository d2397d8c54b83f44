/**
 * Historical shapes no current apiserver serves, validated as their last serving releases did.
 * - v1beta1 Validating/MutatingWebhookConfiguration (1.9–1.21): in 1.16–1.21 a write through
 *   v1beta1 never required unique webhook names nor sideEffects None/NoneOnDryRun
 *   (requireUniqueWebhookNames(requestGV) / requireNoSideEffects(requestGV) returned false), and
 *   defaulting filled sideEffects=Unknown and admissionReviewVersions=[v1beta1]. Reconstructed
 *   from the 1.16–1.21 validation.go; matchConditions did not exist then and are ignored.
 * - v1alpha1 InitializerConfiguration (1.7–1.13): ValidateInitializerConfiguration, with rules
 *   that may not name subresources (validateRule with allowSubResource=false).
 * - v1alpha1 ExternalAdmissionHookConfiguration (1.7–1.8): ValidateExternalAdmissionHookConfiguration
 *   — fully qualified hook names, rules with operations (subresources allowed), failurePolicy
 *   Ignore or Fail (defaulted to Ignore). clientConfig was not validated beyond decoding.
 */
import type { FieldError } from "./field-error";
import { FieldPath } from "./field-path";
import { isFullyQualifiedName } from "./dns";
import type { JsonObject } from "./json";
import { obj, objList, str } from "./json";
import { validateObjectMeta } from "./object-meta";
import { validateRule, validateRuleWithOperations } from "./rules";
import { notSupported } from "./field-error";
import type { WebhookValidationOptions } from "./webhook";

/** The options a v1beta1 write used in 1.16–1.21. */
export const v1beta1WebhookOptions: WebhookValidationOptions = {
  ignoreMatchConditions: true,
  requireNoSideEffects: false,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: false,
  allowInvalidLabelValueInSelector: false,
};

/** ValidateInitializerConfiguration (v1alpha1, 1.7–1.13). */
export function validateInitializerConfiguration(o: JsonObject): FieldError[] {
  const errs = validateObjectMeta(obj(o, "metadata"));
  objList(o, "initializers").forEach((ini, i) => {
    const p = FieldPath.root("initializers").at(i);
    errs.push(...isFullyQualifiedName(p.child("name"), str(ini, "name")));
    objList(ini, "rules").forEach((r, j) =>
      errs.push(...validateRule(r, p.child("rules").at(j), false)),
    );
  });
  return errs;
}

const supportedFailurePolicies = ["Fail", "Ignore"];

/** ValidateExternalAdmissionHookConfiguration (v1alpha1, 1.7–1.8). */
export function validateExternalAdmissionHookConfiguration(o: JsonObject): FieldError[] {
  const errs = validateObjectMeta(obj(o, "metadata"));
  objList(o, "externalAdmissionHooks").forEach((hook, i) => {
    const p = FieldPath.root("externalAdmissionHooks").at(i);
    errs.push(...isFullyQualifiedName(p.child("name"), str(hook, "name")));
    objList(hook, "rules").forEach((r, j) =>
      errs.push(...validateRuleWithOperations(r, p.child("rules").at(j))),
    );
    const fp = hook["failurePolicy"];
    if (typeof fp === "string" && !supportedFailurePolicies.includes(fp))
      errs.push(notSupported(p.child("failurePolicy"), fp, supportedFailurePolicies));
  });
  return errs;
}
