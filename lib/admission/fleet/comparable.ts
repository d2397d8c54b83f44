/**
 * The fields of a webhook configuration, admission policy or binding that the fleet page compares
 * across clusters, each as one canonical text (keys sorted, the apiserver's v1 defaults filled in
 * where an unset field means the default), so that two clusters holding the same configuration
 * read the same and a difference is a difference of what the apiserver does. Pure.
 */
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { EngineName } from "@/lib/admission/engines/types";

/** The kinds compared across clusters. */
export type ComparableKind =
  | "MutatingWebhookConfiguration"
  | "ValidatingWebhookConfiguration"
  | "ValidatingAdmissionPolicy"
  | "ValidatingAdmissionPolicyBinding"
  | "MutatingAdmissionPolicy"
  | "MutatingAdmissionPolicyBinding";

/** One object of one cluster as compared: field → canonical text (an absent field is absent). */
export interface Comparable {
  readonly kind: ComparableKind;
  readonly name: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** Text of a JSON value with object keys sorted (undefined: "unset"). */
export function canonical(v: unknown): string {
  if (v === undefined) return "unset";
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/**
 * A short digest of a text (two FNV-1a 32-bit hashes, 16 hex digits): enough to tell two caBundles
 * apart on a page, not a cryptographic hash. Runs unchanged in the browser.
 */
export function textDigest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ ((c * 31 + i) & 0xffff), 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const nameOf = (o: unknown): string => {
  const n = obj(obj(o)["metadata"])["name"];
  return typeof n === "string" ? n : "";
};

/** An empty selector and an unset one select everything alike. */
function selector(v: unknown): string {
  const s = obj(v);
  const labels = obj(s["matchLabels"]);
  const exprs = arr(s["matchExpressions"]);
  if (Object.keys(labels).length === 0 && exprs.length === 0) return "{} (everything)";
  return canonical(s);
}

function put(fields: Record<string, string>, key: string, v: unknown): void {
  fields[key] = canonical(v);
}

/** The webhooks of a configuration, each field under `<hook name>.<field>`. */
function webhookFields(cfg: unknown, mutating: boolean): Record<string, string> {
  const fields: Record<string, string> = {};
  const hooks = arr(obj(cfg)["webhooks"]);
  fields["webhooks"] = canonical(hooks.map((w) => obj(w)["name"]));
  for (const raw of hooks) {
    const w = obj(raw);
    const n = typeof w["name"] === "string" ? w["name"] : "";
    const cc = obj(w["clientConfig"]);
    put(fields, `${n}.failurePolicy`, w["failurePolicy"] ?? "Fail");
    put(fields, `${n}.timeoutSeconds`, w["timeoutSeconds"] ?? 10);
    put(fields, `${n}.matchPolicy`, w["matchPolicy"] ?? "Equivalent");
    fields[`${n}.namespaceSelector`] = selector(w["namespaceSelector"]);
    fields[`${n}.objectSelector`] = selector(w["objectSelector"]);
    put(
      fields,
      `${n}.rules`,
      arr(w["rules"]).map((r) => ({ scope: "*", ...obj(r) })),
    );
    put(fields, `${n}.matchConditions`, arr(w["matchConditions"]));
    put(fields, `${n}.sideEffects`, w["sideEffects"]);
    if (mutating) put(fields, `${n}.reinvocationPolicy`, w["reinvocationPolicy"] ?? "Never");
    const service = obj(cc["service"]);
    put(
      fields,
      `${n}.backend`,
      typeof cc["url"] === "string" ? cc["url"] : { ...service, port: service["port"] ?? 443 },
    );
    const ca = cc["caBundle"];
    fields[`${n}.caBundle`] =
      typeof ca === "string" && ca !== "" ? `digest ${textDigest(ca)}` : "none";
  }
  return fields;
}

function policyFields(p: unknown): Record<string, string> {
  const spec = obj(obj(p)["spec"]);
  const mc = obj(spec["matchConstraints"]);
  const fields: Record<string, string> = {};
  put(fields, "failurePolicy", spec["failurePolicy"] ?? "Fail");
  put(fields, "paramKind", spec["paramKind"]);
  fields["namespaceSelector"] = selector(mc["namespaceSelector"]);
  fields["objectSelector"] = selector(mc["objectSelector"]);
  put(fields, "rules", arr(mc["resourceRules"]));
  put(fields, "excludeRules", arr(mc["excludeResourceRules"]));
  put(fields, "matchPolicy", mc["matchPolicy"] ?? "Equivalent");
  put(fields, "matchConditions", arr(spec["matchConditions"]));
  put(fields, "variables", arr(spec["variables"]));
  if ("validations" in spec) put(fields, "validations", arr(spec["validations"]));
  if ("auditAnnotations" in spec) put(fields, "auditAnnotations", arr(spec["auditAnnotations"]));
  if ("mutations" in spec) put(fields, "mutations", arr(spec["mutations"]));
  if ("reinvocationPolicy" in spec) put(fields, "reinvocationPolicy", spec["reinvocationPolicy"]);
  return fields;
}

function bindingFields(b: unknown): Record<string, string> {
  const spec = obj(obj(b)["spec"]);
  const mr = obj(spec["matchResources"]);
  const fields: Record<string, string> = {};
  put(fields, "policyName", spec["policyName"]);
  put(fields, "paramRef", spec["paramRef"]);
  fields["namespaceSelector"] = selector(mr["namespaceSelector"]);
  fields["objectSelector"] = selector(mr["objectSelector"]);
  put(fields, "rules", arr(mr["resourceRules"]));
  put(fields, "excludeRules", arr(mr["excludeResourceRules"]));
  if ("validationActions" in spec) put(fields, "validationActions", spec["validationActions"]);
  return fields;
}

/**
 * Every webhook configuration, admission policy and binding of a snapshot as compared across
 * clusters. `engineOf(kind, name)` names the policy engine (and its version) that owns an
 * object, when one does: the `engine` field.
 */
export function comparablesOf(
  s: AdmissionSnapshot,
  engineOf: (kind: ComparableKind, name: string) => string | undefined = () => undefined,
): Comparable[] {
  const out: Comparable[] = [];
  const add = (
    kind: ComparableKind,
    list: readonly unknown[] | undefined,
    f: (o: unknown) => Record<string, string>,
  ) => {
    for (const o of list ?? []) {
      const name = nameOf(o);
      const fields = f(o);
      const engine = engineOf(kind, name);
      if (engine) fields["engine"] = engine;
      out.push({ kind, name, fields });
    }
  };
  add("MutatingWebhookConfiguration", s.mutatingWebhookConfigurations, (o) =>
    webhookFields(o, true),
  );
  add("ValidatingWebhookConfiguration", s.validatingWebhookConfigurations, (o) =>
    webhookFields(o, false),
  );
  add("ValidatingAdmissionPolicy", s.validatingAdmissionPolicies, policyFields);
  add("ValidatingAdmissionPolicyBinding", s.validatingAdmissionPolicyBindings, bindingFields);
  add("MutatingAdmissionPolicy", s.mutatingAdmissionPolicies, policyFields);
  add("MutatingAdmissionPolicyBinding", s.mutatingAdmissionPolicyBindings, bindingFields);
  return out;
}

/** How an engine is named with its version in the `engine` field. */
export function engineLabel(engine: EngineName, version: string | undefined): string {
  return version ? `${engine} ${version}` : `${engine} (version not labelled)`;
}
