/**
 * Defaulting as the apiserver applies it before validation and storage
 * (pkg/apis/admissionregistration/{v1,v1beta1,v1alpha1}/defaults.go and zz_generated.defaults.go).
 * v1 does NOT default sideEffects or admissionReviewVersions; v1beta1 did.
 */
import type { JsonObject, JsonValue } from "./json";
import { clone, isObject } from "./json";
import type { KindInfo } from "./kind-info";
import { webhookDefaults } from "@/lib/admission/model/webhook-defaults";

function setIfMissing(o: JsonObject, key: string, value: JsonValue): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

function eachObject(o: JsonObject | undefined, key: string, fn: (x: JsonObject) => void): void {
  const a = o?.[key];
  if (!Array.isArray(a)) return;
  a.forEach((x, i) => {
    // A null element decodes to a zero struct, which is then defaulted.
    if (x === null) a[i] = {};
    const e = a[i];
    if (isObject(e)) fn(e);
  });
}

function defaultRule(r: JsonObject): void {
  setIfMissing(r, "scope", webhookDefaults("v1").ruleScope);
}

function defaultWebhook(h: JsonObject, mutating: boolean, legacy: boolean): void {
  const d = webhookDefaults(legacy ? "v1beta1" : "v1");
  setIfMissing(h, "failurePolicy", d.failurePolicy);
  setIfMissing(h, "matchPolicy", d.matchPolicy);
  setIfMissing(h, "namespaceSelector", {});
  setIfMissing(h, "objectSelector", {});
  if (d.sideEffects) setIfMissing(h, "sideEffects", d.sideEffects);
  setIfMissing(h, "timeoutSeconds", d.timeoutSeconds);
  if (
    legacy &&
    (!Array.isArray(h.admissionReviewVersions) || h.admissionReviewVersions.length === 0)
  )
    h.admissionReviewVersions = ["v1beta1"];
  if (mutating) setIfMissing(h, "reinvocationPolicy", d.reinvocationPolicy);
  const cc = h.clientConfig;
  if (isObject(cc) && isObject(cc.service)) setIfMissing(cc.service, "port", d.servicePort);
  eachObject(h, "rules", defaultRule);
}

function defaultWebhookConfiguration(
  o: JsonObject,
  mutating: boolean,
  legacy: boolean,
): JsonObject {
  const out = clone(o);
  eachObject(out, "webhooks", (h) => defaultWebhook(h, mutating, legacy));
  return out;
}

/** Defaults a ValidatingWebhookConfiguration (v1, or the historical v1beta1 defaults). */
function defaultValidatingWebhookConfiguration(
  o: JsonObject,
  version: "v1" | "v1beta1" = "v1",
): JsonObject {
  return defaultWebhookConfiguration(o, false, version === "v1beta1");
}

/** Defaults a MutatingWebhookConfiguration (v1, or the historical v1beta1 defaults). */
function defaultMutatingWebhookConfiguration(
  o: JsonObject,
  version: "v1" | "v1beta1" = "v1",
): JsonObject {
  return defaultWebhookConfiguration(o, true, version === "v1beta1");
}

function defaultMatchResources(m: JsonObject): void {
  setIfMissing(m, "matchPolicy", "Equivalent");
  setIfMissing(m, "namespaceSelector", {});
  setIfMissing(m, "objectSelector", {});
  eachObject(m, "resourceRules", defaultRule);
  eachObject(m, "excludeResourceRules", defaultRule);
}

function defaultPolicy(o: JsonObject): JsonObject {
  const out = clone(o);
  if (!isObject(out.spec)) out.spec = {};
  const spec = out.spec;
  if (isObject(spec)) {
    setIfMissing(spec, "failurePolicy", "Fail");
    if (isObject(spec.matchConstraints)) defaultMatchResources(spec.matchConstraints);
  }
  return out;
}

/** Defaults a ValidatingAdmissionPolicy: failurePolicy Fail and matchConstraints defaults. */
function defaultValidatingAdmissionPolicy(o: JsonObject): JsonObject {
  return defaultPolicy(o);
}

/** Defaults a MutatingAdmissionPolicy: failurePolicy Fail and matchConstraints defaults. */
function defaultMutatingAdmissionPolicy(o: JsonObject): JsonObject {
  return defaultPolicy(o);
}

function defaultBinding(o: JsonObject, defaultParamNotFound: boolean): JsonObject {
  const out = clone(o);
  const spec = out.spec;
  if (isObject(spec)) {
    if (isObject(spec.matchResources)) defaultMatchResources(spec.matchResources);
    if (defaultParamNotFound && isObject(spec.paramRef))
      setIfMissing(spec.paramRef, "parameterNotFoundAction", "Deny");
  }
  return out;
}

/** Defaults a ValidatingAdmissionPolicyBinding (v1 has no paramRef default). */
function defaultValidatingAdmissionPolicyBinding(o: JsonObject): JsonObject {
  return defaultBinding(o, false);
}

/** Defaults a MutatingAdmissionPolicyBinding; only v1alpha1 defaults parameterNotFoundAction to Deny. */
function defaultMutatingAdmissionPolicyBinding(
  o: JsonObject,
  version: "v1" | "v1beta1" | "v1alpha1" = "v1",
): JsonObject {
  return defaultBinding(o, version === "v1alpha1");
}

/** InitializerConfiguration had no defaults. */
function defaultInitializerConfiguration(o: JsonObject): JsonObject {
  return clone(o);
}

/** ExternalAdmissionHookConfiguration (1.7–1.8): failurePolicy defaults to Ignore. */
function defaultExternalAdmissionHookConfiguration(o: JsonObject): JsonObject {
  const out = clone(o);
  const hooks = out["externalAdmissionHooks"];
  if (Array.isArray(hooks))
    for (const h of hooks)
      if (h && typeof h === "object" && !Array.isArray(h) && h["failurePolicy"] === undefined)
        h["failurePolicy"] = "Ignore";
  return out;
}

/** The object as the server would store it: the defaults for `kind` applied to a copy of `o`. */
export function applyDefaults(kind: KindInfo, o: JsonObject): JsonObject {
  switch (kind.kind) {
    case "ValidatingWebhookConfiguration":
      return defaultValidatingWebhookConfiguration(
        o,
        kind.version === "v1beta1" ? "v1beta1" : "v1",
      );
    case "MutatingWebhookConfiguration":
      return defaultMutatingWebhookConfiguration(o, kind.version === "v1beta1" ? "v1beta1" : "v1");
    case "ValidatingAdmissionPolicy":
      return defaultValidatingAdmissionPolicy(o);
    case "MutatingAdmissionPolicy":
      return defaultMutatingAdmissionPolicy(o);
    case "ValidatingAdmissionPolicyBinding":
      return defaultValidatingAdmissionPolicyBinding(o);
    case "MutatingAdmissionPolicyBinding":
      return defaultMutatingAdmissionPolicyBinding(o, kind.version);
    case "InitializerConfiguration":
      return defaultInitializerConfiguration(o);
    case "ExternalAdmissionHookConfiguration":
      return defaultExternalAdmissionHookConfiguration(o);
  }
}
