/**
 * Validation of MutatingWebhookConfiguration and ValidatingWebhookConfiguration
 * (k8s.io/kubernetes pkg/apis/admissionregistration/validation, v1.37.2), on the defaulted object.
 */
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";
import { validateClientConfig } from "./client-config";
import type { FieldError } from "./field-error";
import {
  duplicate,
  invalid,
  invalidJson,
  invalidScalar,
  notSupported,
  required,
} from "./field-error";
import { FieldPath } from "./field-path";
import { isDNS1035Label, isFullyQualifiedName } from "./dns";
import type { JsonObject } from "./json";
import { arr, deepEqual, obj, objList, optNum, optStr, str, strList } from "./json";
import { validateLabelSelector } from "./label-selector";
import { validateMatchConditions } from "./match-conditions";
import { validateObjectMeta } from "./object-meta";
import { validateRuleWithOperations } from "./rules";

/** validationOptions, minus the CEL environment choice (cel-js has a single environment). */
export interface WebhookValidationOptions {
  ignoreMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
  /** The minor whose apiserver is reproduced (default: the newest). */
  minor?: KubernetesMinor;
}

/** The options ValidateXWebhookConfiguration uses on create. */
export const createOptions: WebhookValidationOptions = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
};

const supportedFailurePolicies = ["Fail", "Ignore"];
const supportedMatchPolicies = ["Equivalent", "Exact"];
const supportedSideEffectClasses = ["None", "NoneOnDryRun", "Some", "Unknown"];
const noSideEffectClasses = ["None", "NoneOnDryRun"];
const supportedReinvocationPolicies = ["IfNeeded", "Never"];
/** AcceptedAdmissionReviewVersions. */
const acceptedAdmissionReviewVersions = ["v1", "v1beta1"];

/** validateAdmissionReviewVersions. */
function validateAdmissionReviewVersions(
  versions: string[],
  requireRecognized: boolean,
  p: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  if (versions.length < 1) {
    errs.push(required(p, `must specify one of ${acceptedAdmissionReviewVersions.join(", ")}`));
    return errs;
  }
  const seen = new Set<string>();
  let hasAccepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(p.at(i), v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalid(p.at(i), v, m));
    if (acceptedAdmissionReviewVersions.includes(v)) hasAccepted = true;
  });
  if (requireRecognized && !hasAccepted)
    errs.push(
      invalidJson(
        p,
        versions,
        `must include at least one of ${acceptedAdmissionReviewVersions.join(", ")}`,
      ),
    );
  return errs;
}

/** validate{Validating,Mutating}Webhook. */
function validateWebhook(
  hook: JsonObject,
  mutating: boolean,
  opts: WebhookValidationOptions,
  p: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...isFullyQualifiedName(p.child("name"), str(hook, "name")));
  const selOpts = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  objList(hook, "rules").forEach((r, i) =>
    errs.push(...validateRuleWithOperations(r, p.child("rules").at(i))),
  );
  const fp = optStr(hook, "failurePolicy");
  if (fp !== undefined && !supportedFailurePolicies.includes(fp))
    errs.push(notSupported(p.child("failurePolicy"), fp, supportedFailurePolicies));
  const mp = optStr(hook, "matchPolicy");
  if (mp !== undefined && !supportedMatchPolicies.includes(mp))
    errs.push(notSupported(p.child("matchPolicy"), mp, supportedMatchPolicies));
  const allowed = opts.requireNoSideEffects ? noSideEffectClasses : supportedSideEffectClasses;
  const se = optStr(hook, "sideEffects");
  if (se === undefined)
    errs.push(required(p.child("sideEffects"), `must specify one of ${allowed.join(", ")}`));
  else if (!allowed.includes(se)) errs.push(notSupported(p.child("sideEffects"), se, allowed));
  const t = optNum(hook, "timeoutSeconds");
  if (t !== undefined && (t > 30 || t < 1))
    errs.push(
      invalidScalar(
        p.child("timeoutSeconds"),
        t,
        "the timeout value must be between 1 and 30 seconds",
      ),
    );
  const ns = obj(hook, "namespaceSelector");
  if (ns) errs.push(...validateLabelSelector(ns, selOpts, p.child("namespaceSelector")));
  const os = obj(hook, "objectSelector");
  if (os) errs.push(...validateLabelSelector(os, selOpts, p.child("objectSelector")));
  if (mutating) {
    const rp = optStr(hook, "reinvocationPolicy");
    if (rp !== undefined && !supportedReinvocationPolicies.includes(rp))
      errs.push(notSupported(p.child("reinvocationPolicy"), rp, supportedReinvocationPolicies));
  }
  errs.push(...validateClientConfig(obj(hook, "clientConfig"), p.child("clientConfig")));
  if (!opts.ignoreMatchConditions)
    errs.push(
      ...validateMatchConditions(
        objList(hook, "matchConditions"),
        false,
        p.child("matchConditions"),
      ),
    );
  return errs;
}

/**
 * validate{Validating,Mutating}WebhookConfiguration on a defaulted object.
 * @param mutating true for MutatingWebhookConfiguration
 */
export function validateWebhookConfiguration(
  o: JsonObject,
  mutating: boolean,
  opts: WebhookValidationOptions,
): FieldError[] {
  const errs = validateObjectMeta(obj(o, "metadata"), opts.minor);
  const names = new Set<string>();
  objList(o, "webhooks").forEach((hook, i) => {
    const p = FieldPath.root("webhooks").at(i);
    errs.push(...validateWebhook(hook, mutating, opts, p));
    errs.push(
      ...validateAdmissionReviewVersions(
        strList(hook, "admissionReviewVersions"),
        opts.requireRecognizedAdmissionReviewVersion,
        p.child("admissionReviewVersions"),
      ),
    );
    const name = str(hook, "name");
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push(duplicate(p.child("name"), name));
      else names.add(name);
    }
  });
  return errs;
}

function hooks(o: JsonObject): JsonObject[] {
  return objList(o, "webhooks");
}

function hasInvalidLabelValueInSelector(old: JsonObject): boolean {
  const p = FieldPath.root("x");
  return hooks(old).some((h) =>
    (["namespaceSelector", "objectSelector"] as const).some((k) => {
      const s = obj(h, k);
      return s !== undefined && validateLabelSelector(s, {}, p).length > 0;
    }),
  );
}

/**
 * The options ValidateXWebhookConfigurationUpdate computes from the old object: each strict rule is
 * relaxed when the stored object already broke it (ratcheting).
 */
export function updateOptions(newO: JsonObject, oldO: JsonObject): WebhookValidationOptions {
  const nh = hooks(newO);
  const oh = hooks(oldO);
  const ignoreMatchConditions =
    nh.length === oh.length &&
    oh.every((h, i) =>
      deepEqual(arr(nh[i], "matchConditions") ?? null, arr(h, "matchConditions") ?? null),
    );
  const requireNoSideEffects = oh.every((h) => {
    const se = optStr(h, "sideEffects");
    return se !== undefined && noSideEffectClasses.includes(se);
  });
  const requireRecognizedAdmissionReviewVersion = oh.every((h) => {
    const v = strList(h, "admissionReviewVersions");
    return v.length === 0 || v.some((x) => acceptedAdmissionReviewVersions.includes(x));
  });
  const seen = new Set<string>();
  let unique = true;
  for (const h of oh) {
    const n = str(h, "name");
    if (seen.has(n)) unique = false;
    seen.add(n);
  }
  return {
    ignoreMatchConditions,
    requireNoSideEffects,
    requireRecognizedAdmissionReviewVersion,
    requireUniqueWebhookNames: unique,
    allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelector(oldO),
  };
}
