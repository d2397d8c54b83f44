/**
 * What a break-glass is, as the cluster and the store both hold it: the record written to the
 * object's `portcullis.dev/break-glass` annotation (JSON) — a webhook configuration's or an
 * admission policy binding's — in the same write that lets writes through, so that a dashboard that lost its store — or another replica — can still restore it on
 * time. Pure.
 */

/** The annotation holding the active break-glass of a configuration (at most one at a time). */
export const BREAK_GLASS_ANNOTATION = "portcullis.dev/break-glass";

/** The namespace label every namespace carries (set by the apiserver since 1.21). */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** The verb the documented `breakglass` authorization matchCondition checks. */
export const BREAKGLASS_VERB = "breakglass";

/**
 * How writes are let through: `ignore` sets failurePolicy Ignore (a failing hook no longer
 * refuses; a hook that answers still decides), `exclude-namespaces` adds a NotIn term on the
 * namespace name label to namespaceSelector (the hook is not called there at all), `grant` binds
 * the `breakglass` verb the hook's own matchCondition checks to a group (the hook skips that
 * group's requests). On an admission policy binding: `warn` replaces a ValidatingAdmissionPolicyBinding's
 * Deny among its validationActions with Warn and Audit (a failing validation is told and
 * recorded, not refused), `exclude-namespaces` adds the NotIn term to the binding's
 * matchResources.namespaceSelector (the policy is not evaluated there).
 */
export type BreakGlassMode = "ignore" | "exclude-namespaces" | "grant" | "warn";
const BREAK_GLASS_MODES: readonly BreakGlassMode[] = [
  "ignore",
  "exclude-namespaces",
  "grant",
  "warn",
];

/** The webhook configuration kinds a break-glass applies to (by resource). */
type BreakGlassConfigurationResource =
  "validatingwebhookconfigurations" | "mutatingwebhookconfigurations";

/** The admission policy binding kinds a break-glass applies to (by resource). */
type BreakGlassBindingResource =
  "validatingadmissionpolicybindings" | "mutatingadmissionpolicybindings";

/** The kinds a break-glass applies to (by resource). */
export type BreakGlassResource = BreakGlassConfigurationResource | BreakGlassBindingResource;
export const BREAK_GLASS_RESOURCES: readonly BreakGlassResource[] = [
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicybindings",
];

export function isBindingBreakGlass(r: BreakGlassResource): r is BreakGlassBindingResource {
  return r === "validatingadmissionpolicybindings" || r === "mutatingadmissionpolicybindings";
}

/** The modes that fit a kind: a binding has no failurePolicy and no hook-declared check. */
export function modesFor(r: BreakGlassResource): readonly BreakGlassMode[] {
  if (r === "validatingadmissionpolicybindings") return ["warn", "exclude-namespaces"];
  if (r === "mutatingadmissionpolicybindings") return ["exclude-namespaces"];
  return ["ignore", "exclude-namespaces", "grant"];
}

/**
 * The fields a break-glass changes: a hook's failurePolicy or namespaceSelector; a binding's
 * spec.validationActions or spec.matchResources (whole, as the apiserver defaults it).
 */
export type BreakGlassField =
  "failurePolicy" | "namespaceSelector" | "validationActions" | "matchResources";
const BREAK_GLASS_FIELDS: readonly BreakGlassField[] = [
  "failurePolicy",
  "namespaceSelector",
  "validationActions",
  "matchResources",
];

/**
 * One field of one hook (of a binding: `hook` is the binding's name) as break-glass found it and
 * as it left it. `original` null: the field was absent (the apiserver defaults a hook's two in
 * v1; a binding's matchResources may be absent, and is then removed again on revert).
 */
export interface FieldChange {
  readonly hook: string;
  readonly field: BreakGlassField;
  readonly original: unknown;
  readonly set: unknown;
}

/** The RBAC objects of a `grant`: a ClusterRole with the verb and its ClusterRoleBinding. */
export interface Grant {
  readonly group: string;
  /** Name of both the ClusterRole and the ClusterRoleBinding. */
  readonly name: string;
  /** What the hook's condition checks: the resource attributes the role grants the verb on. */
  readonly apiGroup: string;
  readonly resource: string;
  readonly resourceName?: string;
}

export interface BreakGlassRecord {
  readonly v: 1;
  readonly id: string;
  readonly mode: BreakGlassMode;
  readonly resource: BreakGlassResource;
  /** The configuration's (or binding's) name. */
  readonly name: string;
  /** The hooks it applies to (every hook of the configuration, or one; a binding's own name). */
  readonly hooks: readonly string[];
  /** What to restore (empty for `grant`: nothing of the object changes). */
  readonly fields: readonly FieldChange[];
  readonly namespaces?: readonly string[];
  readonly grant?: Grant;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  readonly expiresAt: number;
  /** Who broke the glass (the user or kubeconfig context it was written as). */
  readonly actor: string;
  readonly reason: string;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === "string";

function parseField(v: unknown): FieldChange | undefined {
  if (!isObj(v) || !isStr(v.hook)) return undefined;
  if (!BREAK_GLASS_FIELDS.includes(v.field as BreakGlassField)) return undefined;
  if (!("original" in v) || !("set" in v)) return undefined;
  return {
    hook: v.hook,
    field: v.field as BreakGlassField,
    original: v.original ?? null,
    set: v.set ?? null,
  };
}

function parseGrant(v: unknown): Grant | undefined {
  if (!isObj(v)) return undefined;
  const { group, name, apiGroup, resource, resourceName } = v;
  if (!isStr(group) || !isStr(name) || !isStr(apiGroup) || !isStr(resource)) return undefined;
  if (resourceName !== undefined && !isStr(resourceName)) return undefined;
  return { group, name, apiGroup, resource, ...(resourceName ? { resourceName } : {}) };
}

/** Reads the annotation's text; undefined when it is not one this version wrote. */
export function parseRecord(text: string | undefined): BreakGlassRecord | undefined {
  if (!text) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(v) || v.v !== 1 || !isStr(v.id) || !isStr(v.name)) return undefined;
  if (!BREAK_GLASS_MODES.includes(v.mode as BreakGlassMode)) return undefined;
  if (!BREAK_GLASS_RESOURCES.includes(v.resource as BreakGlassResource)) return undefined;
  if (!modesFor(v.resource as BreakGlassResource).includes(v.mode as BreakGlassMode))
    return undefined;
  if (typeof v.startedAt !== "number" || typeof v.expiresAt !== "number") return undefined;
  if (!isStr(v.actor) || !isStr(v.reason)) return undefined;
  if (!Array.isArray(v.hooks) || !v.hooks.every(isStr)) return undefined;
  if (!Array.isArray(v.fields)) return undefined;
  const fields = v.fields.map(parseField);
  if (fields.some((f) => !f)) return undefined;
  const grant = v.grant === undefined ? undefined : parseGrant(v.grant);
  if (v.grant !== undefined && !grant) return undefined;
  if (v.mode === "grant" && !grant) return undefined;
  const namespaces =
    Array.isArray(v.namespaces) && v.namespaces.every(isStr) ? v.namespaces : undefined;
  return {
    v: 1,
    id: v.id,
    mode: v.mode as BreakGlassMode,
    resource: v.resource as BreakGlassResource,
    name: v.name,
    hooks: v.hooks,
    fields: fields as FieldChange[],
    ...(namespaces ? { namespaces } : {}),
    ...(grant ? { grant } : {}),
    startedAt: v.startedAt,
    expiresAt: v.expiresAt,
    actor: v.actor,
    reason: v.reason,
  };
}

/** The annotation's text for a record (stable key order, so equal records read equal). */
export function formatRecord(r: BreakGlassRecord): string {
  return JSON.stringify({
    v: r.v,
    id: r.id,
    mode: r.mode,
    resource: r.resource,
    name: r.name,
    hooks: r.hooks,
    fields: r.fields.map((f) => ({
      hook: f.hook,
      field: f.field,
      original: f.original,
      set: f.set,
    })),
    ...(r.namespaces ? { namespaces: r.namespaces } : {}),
    ...(r.grant ? { grant: r.grant } : {}),
    startedAt: r.startedAt,
    expiresAt: r.expiresAt,
    actor: r.actor,
    reason: r.reason,
  });
}
