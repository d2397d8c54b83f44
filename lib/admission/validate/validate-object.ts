/**
 * The apiserver's create/update path for one already-parsed object: strict decoding, defaulting,
 * then the kind's validation (with update ratcheting when the stored object is given) and warnings.
 */
import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import { applyDefaults } from "./defaults";
import type { FieldError } from "./field-error";
import { errorBody } from "./field-error";
import { goQuote } from "./go-format";
import type { ValidationIssue } from "./issue";
import type { JsonObject, JsonValue } from "./json";
import { isObject, obj, str } from "./json";
import type { KindInfo } from "./kind-info";
import { apiVersionOf } from "./kind-info";
import {
  v1beta1WebhookOptions,
  validateExternalAdmissionHookConfiguration,
  validateInitializerConfiguration,
} from "./legacy";
import { effectiveName } from "./object-meta";
import {
  policyUpdateOptions,
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
} from "./policy";
import { schemas } from "./schema";
import type { DecodeError } from "./strict-decode";
import { decodeErrorMessage, strictDecode } from "./strict-decode";
import { excludedRuleWarnings, staticSuffixWarnings, validateStaticSuffix } from "./warnings";
import { createOptions, updateOptions, validateWebhookConfiguration } from "./webhook";

/** The outcome of validating one object. */
export interface ObjectValidation {
  kind: KindInfo;
  name: string;
  /** Decode problems first (the apiserver stops there with 400), then validation errors and warnings. */
  issues: ValidationIssue[];
  /** The object as the server would store it (defaults applied). */
  defaulted: JsonObject;
  /** What the apiserver answers: 400 at decoding, 422 at validation, or accepted. */
  outcome: "decode-error" | "invalid" | "accepted";
  /** The apiserver's Status message for a rejection, or "" when accepted. */
  statusMessage: string;
}

/** Options for {@link validateObject}. */
export interface ValidateObjectOptions {
  /** Duplicate keys found by the text parser, as path segments. */
  duplicates?: (string | number)[][];
  /**
   * Validate as the manifest loader does (`defaultAndValidate*` in the kube-apiserver's manifest
   * loaders): the kind's validation alone, without the registry's refusal of the reserved
   * `.static.k8s.io` suffix, which manifest objects must carry.
   */
  manifest?: boolean;
  /**
   * The minor whose apiserver is reproduced (default: the newest): its ObjectMeta messages,
   * declarative validation, reserved-suffix handling and warnings (MinorBehaviour).
   */
  minor?: KubernetesMinor;
}

function decodeIssue(e: DecodeError): ValidationIssue {
  return {
    field: e.field,
    type:
      e.kind === "type"
        ? "FieldValueTypeInvalid"
        : e.kind === "duplicate"
          ? "FieldValueDuplicate"
          : "FieldValueUnknown",
    message: e.message,
    severity: "error",
    source: "schema",
  };
}

function fieldIssue(e: FieldError): ValidationIssue {
  return {
    field: e.field,
    type: e.type,
    message: errorBody(e),
    severity: "error",
    source: "admission",
  };
}

function warningIssue(w: string): ValidationIssue {
  const i = w.indexOf(": ");
  return {
    field: w.slice(0, i),
    type: "FieldValueInvalid",
    message: w.slice(i + 2),
    severity: "warning",
    source: "admission",
  };
}

function fieldErrorsFor(
  k: KindInfo,
  o: JsonObject,
  old: JsonObject | undefined,
  minor: KubernetesMinor,
): FieldError[] {
  const legacyWebhook = k.version === "v1beta1";
  switch (k.kind) {
    case "ValidatingWebhookConfiguration":
    case "MutatingWebhookConfiguration": {
      const mutating = k.kind === "MutatingWebhookConfiguration";
      const opts = legacyWebhook
        ? v1beta1WebhookOptions
        : old
          ? updateOptions(o, old)
          : createOptions;
      return validateWebhookConfiguration(o, mutating, { ...opts, minor });
    }
    case "ValidatingAdmissionPolicy":
      return validateValidatingAdmissionPolicy(o, {
        ...(old ? policyUpdateOptions(o, old) : { ignoreMatchConditions: false }),
        minor,
      });
    case "MutatingAdmissionPolicy":
      return validateMutatingAdmissionPolicy(o, {
        ...(old ? policyUpdateOptions(o, old) : { ignoreMatchConditions: false }),
        minor,
      });
    case "ValidatingAdmissionPolicyBinding":
      return validateValidatingAdmissionPolicyBinding(o, minor);
    case "MutatingAdmissionPolicyBinding":
      return validateMutatingAdmissionPolicyBinding(o, minor);
    case "InitializerConfiguration":
      return validateInitializerConfiguration(o);
    case "ExternalAdmissionHookConfiguration":
      return validateExternalAdmissionHookConfiguration(o);
  }
}

/**
 * Validates an already-parsed object the way a v1.37.2 apiserver (or `options.minor`'s) handles a
 * create (or, with `old`, an update) with fieldValidation=Strict.
 * @param kindInfo the kind and version the object is sent as
 * @param value the decoded request body
 * @param old the stored object, for update ratcheting
 */
export function validateObject(
  kindInfo: KindInfo,
  value: JsonValue,
  old?: JsonValue,
  options: ValidateObjectOptions = {},
): ObjectValidation {
  const schema = schemas[`${apiVersionOf(kindInfo)}/${kindInfo.kind}`];
  const decodeErrors = schema ? strictDecode(value, schema, options.duplicates) : [];
  const o: JsonObject = isObject(value) ? value : {};
  const defaulted = applyDefaults(kindInfo, o);
  const oldDefaulted = isObject(old) ? applyDefaults(kindInfo, old) : undefined;
  const name = effectiveName(obj(defaulted, "metadata"));
  const minor = options.minor ?? NEWEST_KUBERNETES_MINOR;
  const behaviour = behaviourOf(minor);
  const errs = fieldErrorsFor(kindInfo, defaulted, oldDefaulted, minor);
  const warnings: string[] = [];
  if (options.manifest || behaviour.staticSuffixOnCreate === "none") {
    // The manifest loader calls the kind's validation directly, not the registry strategy; 1.35's
    // strategies do not know the suffix.
  } else if (!oldDefaulted && behaviour.staticSuffixOnCreate === "refused")
    errs.push(...validateStaticSuffix(str(obj(defaulted, "metadata"), "name")));
  else warnings.push(...staticSuffixWarnings(name));
  if (
    behaviour.webhooksSkipVirtualResources &&
    kindInfo.version === "v1" &&
    (kindInfo.kind === "ValidatingWebhookConfiguration" ||
      kindInfo.kind === "MutatingWebhookConfiguration")
  )
    warnings.push(...excludedRuleWarnings(defaulted));
  const issues = [
    ...decodeErrors.map(decodeIssue),
    ...errs.map(fieldIssue),
    ...warnings.map(warningIssue),
  ];
  let outcome: ObjectValidation["outcome"] = "accepted";
  let statusMessage = "";
  if (decodeErrors.length > 0) {
    outcome = "decode-error";
    statusMessage = decodeErrorMessage(kindInfo.kind, kindInfo.version, decodeErrors);
  } else if (errs.length > 0) {
    outcome = "invalid";
    statusMessage = formatStatusMessage(kindInfo.kind, name, errs.map(fieldIssue));
  }
  return { kind: kindInfo, name, issues, defaulted, outcome, statusMessage };
}

/**
 * The apiserver's 422 message for validation issues:
 * `<Kind>.admissionregistration.k8s.io "<name>" is invalid: [<field>: <message>, ...]`
 * (brackets only for two or more distinct errors). Warnings and decode issues are ignored.
 */
export function formatStatusMessage(
  kind: string,
  name: string,
  issues: readonly ValidationIssue[],
): string {
  const seen: string[] = [];
  for (const i of issues) {
    if (i.source !== "admission" || i.severity !== "error") continue;
    const s = `${i.field}: ${i.message}`;
    if (!seen.includes(s)) seen.push(s);
  }
  const head = `${kind}.admissionregistration.k8s.io ${goQuote(name)} is invalid`;
  if (seen.length === 0) return head;
  return `${head}: ${seen.length === 1 ? seen[0] : "[" + seen.join(", ") + "]"}`;
}
