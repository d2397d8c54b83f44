/**
 * Hooks and policies read from an apiserver's manifest directories, judged as the apiserver's
 * manifest loaders judge them (k8s.io/apiserver `pkg/admission/plugin/manifest`,
 * `…/webhook/manifest/loader`, `…/policy/manifest/loader`, and kube-apiserver's
 * `pkg/admission/plugin/{webhook,policy}/manifest/loader` at v1.37.2), with their messages:
 * - files are read in name order, `.yaml`, `.yml` and `.json` only, empty ones skipped, each
 *   split into YAML documents (`LoadFiles`);
 * - each document is decoded strictly as admissionregistration.k8s.io; a `v1` List is unwrapped,
 *   as are the typed lists; only the v1 kinds of the directory's own plugin are accepted
 *   ("unsupported resource type …"), so each plugin needs a directory of its own;
 * - each object is defaulted and validated as a create through the API would be, but without the
 *   refusal of the reserved suffix, which it must carry instead (`ValidateManifestName`), its name
 *   unique within the directory;
 * - webhooks take `clientConfig.url` only; policies take no paramKind, bindings no paramRef, and a
 *   binding names a policy of the same directory (`validateBindingReferences`).
 * A directory with any error loads nothing: the apiserver refuses to start on it, or keeps its
 * previous set on a reload. Reading the files is the caller's (server/, cli/): this module is pure.
 */
import { goQuote } from "@/lib/admission/validate/go-format";
import { isObject, obj, str, type JsonObject, type JsonValue } from "@/lib/admission/validate/json";
import { kindInfoFor } from "@/lib/admission/validate/kind-info";
import { parseDocuments } from "@/lib/admission/validate/source-map";
import { validateObject } from "@/lib/admission/validate/validate-object";
import {
  PLUGIN_KINDS,
  STATIC_CONFIG_SUFFIX,
  hasStaticSuffix,
  manifestOriginKey,
  type ManifestKind,
  type ManifestOrigin,
  type ManifestPlugin,
} from "@/lib/admission/model/manifests";
import type { ManifestObjects } from "@/lib/admission/model/snapshot";

/** One file of a manifest directory, as read from disk. */
export interface ManifestFile {
  /** The file's path (directory joined with its name), as the apiserver names it in messages. */
  readonly path: string;
  readonly text: string;
}

/** One object accepted from a directory, defaulted as the apiserver stores it in memory. */
export interface ManifestObject {
  readonly kind: ManifestKind;
  readonly name: string;
  readonly file: string;
  readonly object: JsonObject;
}

/** What one plugin's directory holds: its objects (sorted by name), or the error that refuses it. */
export type ManifestDirLoad =
  | { readonly ok: true; readonly objects: readonly ManifestObject[] }
  | { readonly ok: false; readonly error: string };

const GROUP = "admissionregistration.k8s.io";

/** `LoadFiles`: the names a manifest directory's files must end with to be read. */
export function isManifestFileName(name: string): boolean {
  const dot = name.lastIndexOf(".");
  if (dot < 0) return false;
  const ext = name.slice(dot).toLowerCase();
  return ext === ".yaml" || ext === ".yml" || ext === ".json";
}

/** Go's byte order of names, as `os.ReadDir` returns them. */
function byteOrder(a: string, b: string): number {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(ea.length, eb.length); i++)
    if (ea[i] !== eb[i]) return (ea[i] as number) - (eb[i] as number);
  return ea.length - eb.length;
}

class LoadError extends Error {}

/**
 * The name the loaders' scheme goes by in a decoding error. `runtime.NewScheme` names a scheme by
 * its call site, which in the released kube-apiserver binary (built with -trimpath) resolves to
 * apimachinery's own file: seen on a v1.37.2 apiserver.
 */
const SCHEME_NAME = "pkg/runtime/scheme.go:111";

const ADMISSION_KINDS: ReadonlySet<string> = new Set([
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
]);

/** The Go type a decoded object has, as `%T` prints it. */
function goType(version: string, kind: string): string {
  return `*${version}.${kind}`;
}

interface Ctx {
  readonly plugin: ManifestPlugin;
  readonly file: string;
  readonly accepted: ManifestObject[];
  /** Names seen per kind family: policies apart from bindings (webhooks in one). */
  readonly seen: Map<string, Map<string, string>>;
}

/** `utilerrors.NewAggregate(errs).Error()`: one message, or `[a, b]`, duplicates dropped. */
function aggregate(messages: readonly string[]): string {
  const seen: string[] = [];
  for (const m of messages) if (!seen.includes(m)) seen.push(m);
  return seen.length === 1 ? (seen[0] as string) : `[${seen.join(", ")}]`;
}

/**
 * Decodes one document (`UniversalDeserializer` of the loader's scheme: admissionregistration
 * and the unversioned v1 List) and accepts what it holds.
 */
function acceptDocument(ctx: Ctx, v: JsonValue, inList: boolean): void {
  if (!isObject(v)) throw new LoadError("Object 'Kind' is missing in '" + JSON.stringify(v) + "'");
  const apiVersion = str(v, "apiVersion");
  const kind = str(v, "kind");
  if (kind === "") throw new LoadError(`Object 'Kind' is missing in '${JSON.stringify(v)}'`);
  if (apiVersion === "v1" && kind === "List") {
    const items = v["items"];
    for (const item of Array.isArray(items) ? items : []) {
      try {
        acceptDocument(ctx, item, true);
      } catch (e) {
        // A decode failure of an item is wrapped; what its acceptance says is not.
        if (e instanceof DecodeFailure)
          throw new LoadError(`failed to decode list item: ${e.message}`);
        throw e;
      }
    }
    return;
  }
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const listOf = kind.endsWith("List") ? kind.slice(0, -"List".length) : undefined;
  const itemKind = listOf !== undefined && ADMISSION_KINDS.has(listOf) ? listOf : kind;
  const known =
    group === GROUP &&
    (version === "v1" || version === "v1beta1" || version === "v1alpha1") &&
    kindInfoFor(apiVersion, itemKind) !== undefined;
  if (!known) {
    const err = `no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme ${goQuote(SCHEME_NAME)}`;
    if (inList) throw new DecodeFailure(err);
    throw new LoadError(err);
  }
  const wanted = (PLUGIN_KINDS[ctx.plugin] as readonly string[]).includes(itemKind);
  if (version !== "v1" || !wanted) {
    // The webhook loaders know one kind; the policy loaders try the policy, then the binding.
    throw new LoadError(`unsupported resource type ${goType(version, kind)}`);
  }
  const items: JsonValue[] =
    listOf !== undefined ? (Array.isArray(v["items"]) ? (v["items"] as JsonValue[]) : []) : [v];
  const accepted: ManifestObject[] = [];
  for (const item of items) {
    // Typed list items carry no apiVersion and kind of their own: they are the list's item type.
    const itemObj: JsonObject = isObject(item)
      ? { ...item, apiVersion: `${GROUP}/v1`, kind: itemKind }
      : { apiVersion: `${GROUP}/v1`, kind: itemKind };
    accepted.push(defaultAndValidate(itemKind as ManifestKind, itemObj, ctx.file));
  }
  for (const a of accepted) {
    validateName(ctx, a);
    validateManifestConstraints(a);
    ctx.accepted.push(a);
  }
}

class DecodeFailure extends Error {}

/** `defaultAndValidate*`: scheme defaults, then the kind's validation as for a create. */
function defaultAndValidate(kind: ManifestKind, o: JsonObject, _file: string): ManifestObject {
  const info = kindInfoFor(`${GROUP}/v1`, kind);
  if (!info) throw new LoadError(`unsupported resource type ${goType("v1", kind)}`);
  const res = validateObject(info, o, undefined, { manifest: true });
  const name = str(obj(res.defaulted, "metadata"), "name");
  if (res.outcome === "decode-error") {
    // The strict decoder's error, without the REST layer's "cannot be handled as" prefix.
    const full = res.statusMessage;
    const prefix = `${kind} in version "v1" cannot be handled as a ${kind}: `;
    throw new LoadError(full.startsWith(prefix) ? full.slice(prefix.length) : full);
  }
  if (res.outcome === "invalid") {
    const messages = res.issues
      .filter((i) => i.source === "admission" && i.severity === "error")
      .map((i) => `${i.field}: ${i.message}`);
    throw new LoadError(`${kind} ${goQuote(name)}: ${aggregate(messages)}`);
  }
  return { kind, name, file: "", object: res.defaulted };
}

/** `ValidateManifestName`: present, suffixed, unique (policies and bindings counted apart). */
function validateName(ctx: Ctx, a: ManifestObject): void {
  const family = a.kind.endsWith("Binding") ? "binding" : "object";
  let seen = ctx.seen.get(family);
  if (!seen) ctx.seen.set(family, (seen = new Map()));
  const file = ctx.file;
  if (a.name === "") throw new LoadError(`resource in file ${goQuote(file)} must have a name`);
  if (!hasStaticSuffix(a.name))
    throw new LoadError(
      `${goQuote(a.name)} in file ${goQuote(file)} must have a name ending with ${goQuote(STATIC_CONFIG_SUFFIX)}`,
    );
  const prev = seen.get(a.name);
  if (prev !== undefined)
    throw new LoadError(
      `duplicate name ${goQuote(a.name)} found in file ${goQuote(file)} (previously seen in ${goQuote(prev)})`,
    );
  seen.set(a.name, file);
  (a as { file: string }).file = file;
}

/** `validateWebhookClientConfigs` and `validatePolicyManifestConstraints`. */
function validateManifestConstraints(a: ManifestObject): void {
  const spec = obj(a.object, "spec");
  switch (a.kind) {
    case "MutatingWebhookConfiguration":
    case "ValidatingWebhookConfiguration": {
      const hooks = a.object["webhooks"];
      for (const w of Array.isArray(hooks) ? hooks : []) {
        if (!isObject(w)) continue;
        const cc = obj(w, "clientConfig");
        const wname = str(w, "name");
        if (cc && isObject(cc["service"]))
          throw new LoadError(
            `webhook ${goQuote(wname)} in ${goQuote(a.name)} (file ${goQuote(a.file)}): clientConfig.service is not supported for static manifests; use clientConfig.url instead`,
          );
        if (str(cc, "url") === "")
          throw new LoadError(
            `webhook ${goQuote(wname)} in ${goQuote(a.name)} (file ${goQuote(a.file)}): clientConfig.url is required for static manifests`,
          );
      }
      return;
    }
    case "ValidatingAdmissionPolicy":
    case "MutatingAdmissionPolicy":
      if (spec && isObject(spec["paramKind"]))
        throw new LoadError(
          `${a.kind} ${goQuote(a.name)}: spec.paramKind is not supported for static manifests`,
        );
      return;
    case "ValidatingAdmissionPolicyBinding":
    case "MutatingAdmissionPolicyBinding": {
      const policyName = str(spec, "policyName");
      if (policyName === "")
        throw new LoadError(`binding ${goQuote(a.name)} must reference a policy (spec.policyName)`);
      if (!policyName.endsWith(STATIC_CONFIG_SUFFIX))
        throw new LoadError(
          `binding ${goQuote(a.name)}: spec.policyName ${goQuote(policyName)} must end with ${goQuote(STATIC_CONFIG_SUFFIX)}`,
        );
      if (spec && isObject(spec["paramRef"]))
        throw new LoadError(
          `binding ${goQuote(a.name)}: spec.paramRef is not supported for static manifests`,
        );
      return;
    }
  }
}

/**
 * Loads one plugin's directory from its files (any order; directories and other names are the
 * caller's to leave out, see `isManifestFileName`). The first error refuses the whole directory,
 * with the apiserver's message.
 */
export function loadManifestDir(
  plugin: ManifestPlugin,
  files: readonly ManifestFile[],
): ManifestDirLoad {
  const accepted: ManifestObject[] = [];
  const seen = new Map<string, Map<string, string>>();
  const sorted = [...files].sort((a, b) => byteOrder(a.path, b.path));
  for (const f of sorted) {
    if (f.text.length === 0) continue;
    const ctx: Ctx = { plugin, file: f.path, accepted, seen };
    for (const doc of parseDocuments(f.text)) {
      if (doc.problems.length > 0)
        return {
          ok: false,
          error: `failed to split YAML documents in file ${goQuote(f.path)}: ${doc.problems[0]?.message ?? ""}`,
        };
      if (doc.value === null) continue;
      try {
        acceptDocument(ctx, doc.value, false);
      } catch (e) {
        if (e instanceof LoadError || e instanceof DecodeFailure)
          return { ok: false, error: `error loading ${f.path}: ${e.message}` };
        throw e;
      }
    }
  }
  // validateBindingReferences: every binding names a policy of this directory.
  const policies = new Set(accepted.filter((a) => !a.kind.endsWith("Binding")).map((a) => a.name));
  for (const a of accepted) {
    if (
      a.kind !== "ValidatingAdmissionPolicyBinding" &&
      a.kind !== "MutatingAdmissionPolicyBinding"
    )
      continue;
    const policyName = str(obj(a.object, "spec"), "policyName");
    if (!policies.has(policyName))
      return {
        ok: false,
        error: `binding ${goQuote(a.name)} references policy ${goQuote(policyName)} which does not exist in the manifest directory`,
      };
  }
  return { ok: true, objects: accepted.sort((a, b) => byteOrder(a.name, b.name)) };
}

/** One plugin's directory as read: where it is, and what it loaded. */
export interface ManifestDir {
  readonly plugin: ManifestPlugin;
  readonly dir: string;
  readonly objects: readonly ManifestObject[];
}

/** The static objects of loaded directories, as `withManifests` adds them to a snapshot. */
export function manifestObjects(dirs: readonly ManifestDir[]): ManifestObjects {
  const out = {
    mutatingWebhookConfigurations: [] as unknown[],
    validatingWebhookConfigurations: [] as unknown[],
    validatingAdmissionPolicies: [] as unknown[],
    validatingAdmissionPolicyBindings: [] as unknown[],
    mutatingAdmissionPolicies: [] as unknown[],
    mutatingAdmissionPolicyBindings: [] as unknown[],
  };
  const origins: Record<string, ManifestOrigin> = {};
  const listOf: Record<ManifestKind, keyof typeof out> = {
    MutatingWebhookConfiguration: "mutatingWebhookConfigurations",
    ValidatingWebhookConfiguration: "validatingWebhookConfigurations",
    ValidatingAdmissionPolicy: "validatingAdmissionPolicies",
    ValidatingAdmissionPolicyBinding: "validatingAdmissionPolicyBindings",
    MutatingAdmissionPolicy: "mutatingAdmissionPolicies",
    MutatingAdmissionPolicyBinding: "mutatingAdmissionPolicyBindings",
  };
  for (const d of dirs)
    for (const o of d.objects) {
      out[listOf[o.kind]].push(o.object);
      origins[manifestOriginKey(o.kind, o.name)] = {
        kind: "manifest",
        plugin: d.plugin,
        file: o.file,
        dir: d.dir,
      };
    }
  // The objects are the apiserver's own shapes, defaulted and validated above.
  return { ...(out as unknown as Omit<ManifestObjects, "origins">), origins };
}
