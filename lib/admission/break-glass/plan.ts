/**
 * Break-glass as pure steps over a webhook configuration or an admission policy binding: the
 * object to write to let writes through (and the record of what it changed), and at the end the object to write back — only the
 * fields break-glass changed, and of those only the ones still as break-glass left them; a field
 * someone changed meanwhile is kept and reported with who changed it (managedFields).
 */
import { canonicalJson } from "@/lib/admission/provenance/fields-v1";
import {
  configurationProvenance,
  type ManagedFieldsEntry,
  type Manager,
} from "@/lib/admission/provenance/provenance";
import {
  BREAK_GLASS_ANNOTATION,
  BREAKGLASS_VERB,
  NAMESPACE_NAME_LABEL,
  formatRecord,
  parseRecord,
  type BreakGlassField,
  type BreakGlassMode,
  type BreakGlassRecord,
  type BreakGlassResource,
  type FieldChange,
  type Grant,
  isBindingBreakGlass,
  modesFor,
} from "./record";

export interface HookObject {
  readonly name?: string;
  readonly failurePolicy?: string;
  readonly namespaceSelector?: unknown;
  readonly matchConditions?: ReadonlyArray<{
    readonly name?: string;
    readonly expression?: string;
  }>;
  readonly [key: string]: unknown;
}

/** A binding's spec (only what break-glass reads is typed). */
interface BindingSpec {
  readonly policyName?: string;
  readonly validationActions?: readonly string[];
  readonly matchResources?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/**
 * A webhook configuration or an admission policy binding as read from the apiserver (only what
 * break-glass reads is typed).
 */
export interface ConfigurationObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly resourceVersion?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly managedFields?: readonly ManagedFieldsEntry[];
    readonly [key: string]: unknown;
  };
  readonly webhooks?: readonly HookObject[];
  readonly spec?: BindingSpec;
  readonly [key: string]: unknown;
}

export interface BreakGlassRequest {
  readonly id: string;
  readonly resource: BreakGlassResource;
  readonly mode: BreakGlassMode;
  /** One hook by name; every hook of the configuration when absent. */
  readonly hook?: string;
  /** `exclude-namespaces`: the namespaces the hooks stop being called in. */
  readonly namespaces?: readonly string[];
  /** `grant`: the group the `breakglass` verb is granted to. */
  readonly group?: string;
  readonly actor: string;
  readonly reason: string;
  readonly now: number;
  readonly durationMs: number;
}

export type Planned<T> = { ok: true; value: T } | { ok: false; message: string };

const fail = <T>(message: string): Planned<T> => ({ ok: false, message });

/** The active break-glass recorded on the object, if any. */
export function activeRecord(obj: ConfigurationObject): BreakGlassRecord | undefined {
  return parseRecord(obj.metadata?.annotations?.[BREAK_GLASS_ANNOTATION]);
}

/** What the hook's documented `breakglass` matchCondition checks, if it declares one. */
export interface BreakglassCheck {
  readonly condition: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly resourceName?: string;
}

const STR = String.raw`(?:'([^']*)'|"([^"]*)")`;
const CHECK = new RegExp(
  String.raw`!\s*authorizer\s*\.\s*group\(\s*${STR}\s*\)\s*\.\s*resource\(\s*${STR}\s*\)(?:\s*\.\s*name\(\s*${STR}\s*\))?\s*\.\s*check\(\s*['"]${BREAKGLASS_VERB}['"]\s*\)\s*\.\s*allowed\(\s*\)`,
);

/**
 * The Kubernetes documentation's example: a matchCondition
 * `!authorizer.group('admissionregistration.k8s.io').resource('validatingwebhookconfigurations').name('my-webhook.example.com').check('breakglass').allowed()`
 * — the hook is skipped for requests whose user may `breakglass` that resource.
 */
export function breakglassCheckOf(hook: HookObject): BreakglassCheck | undefined {
  for (const c of hook.matchConditions ?? []) {
    const m = CHECK.exec(c.expression ?? "");
    if (!m) continue;
    const name = m[5] ?? m[6];
    return {
      condition: c.name ?? "",
      apiGroup: m[1] ?? m[2] ?? "",
      resource: m[3] ?? m[4] ?? "",
      ...(name !== undefined ? { resourceName: name } : {}),
    };
  }
  return undefined;
}

/** The name of a grant's ClusterRole and ClusterRoleBinding. */
const grantName = (id: string) => `portcullis-break-glass-${id}`;

/** The ClusterRole and ClusterRoleBinding a `grant` creates (cluster-wide: the check names no namespace). */
export function grantObjects(g: Grant, labels: Readonly<Record<string, string>>) {
  return {
    role: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: g.name, labels },
      rules: [
        {
          apiGroups: [g.apiGroup],
          resources: [g.resource],
          ...(g.resourceName !== undefined ? { resourceNames: [g.resourceName] } : {}),
          verbs: [BREAKGLASS_VERB],
        },
      ],
    },
    binding: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: g.name, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: g.name },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: g.group }],
    },
  };
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The namespaceSelector with a NotIn term on the namespace name label added, its terms kept. */
function excludeNamespaces(selector: unknown, namespaces: readonly string[]): unknown {
  const s = isObj(selector) ? selector : {};
  const terms = Array.isArray(s.matchExpressions) ? s.matchExpressions : [];
  return {
    ...s,
    matchExpressions: [
      ...terms,
      { key: NAMESPACE_NAME_LABEL, operator: "NotIn", values: [...namespaces] },
    ],
  };
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

function withAnnotation(obj: ConfigurationObject, text: string | undefined): ConfigurationObject {
  const annotations = { ...(obj.metadata?.annotations ?? {}) };
  if (text === undefined) delete annotations[BREAK_GLASS_ANNOTATION];
  else annotations[BREAK_GLASS_ANNOTATION] = text;
  return { ...obj, metadata: { ...obj.metadata, annotations } };
}

const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The object to write to let writes through, and the record it carries. Refused when a
 * break-glass is already active on it, the hook is not there, nothing would change, or the mode
 * does not fit the hooks.
 */
export function planBreakGlass(
  obj: ConfigurationObject,
  req: BreakGlassRequest,
): Planned<{ object: ConfigurationObject; record: BreakGlassRecord }> {
  const name = obj.metadata?.name ?? "";
  const active = activeRecord(obj);
  if (active)
    return fail(
      `a break-glass by ${active.actor} is already active on ${name} until ${new Date(active.expiresAt).toISOString()}: revert it first`,
    );
  if (!req.reason.trim()) return fail("a reason is required");
  if (!(req.durationMs > 0)) return fail("the duration must be positive");
  if (!modesFor(req.resource).includes(req.mode))
    return fail(`${req.mode} does not apply to ${req.resource}`);
  if (isBindingBreakGlass(req.resource)) return planBindingBreakGlass(obj, req);
  const all = obj.webhooks ?? [];
  const hooks = req.hook === undefined ? all : all.filter((h) => h.name === req.hook);
  if (req.hook !== undefined && hooks.length === 0)
    return fail(`${name} has no hook named ${req.hook}`);
  if (hooks.length === 0) return fail(`${name} has no hooks`);
  const base = {
    v: 1 as const,
    id: req.id,
    mode: req.mode,
    resource: req.resource,
    name,
    hooks: hooks.map((h) => h.name ?? ""),
    startedAt: req.now,
    expiresAt: req.now + req.durationMs,
    actor: req.actor,
    reason: req.reason,
  };
  const fields: FieldChange[] = [];
  const next = clone(all) as Array<Record<string, unknown>>;
  const targets = new Set(base.hooks);
  let grant: Grant | undefined;
  if (req.mode === "ignore") {
    next.forEach((h) => {
      const hookName = String(h.name ?? "");
      if (!targets.has(hookName) || h.failurePolicy === "Ignore") return;
      fields.push({
        hook: hookName,
        field: "failurePolicy",
        original: h.failurePolicy ?? null,
        set: "Ignore",
      });
      h.failurePolicy = "Ignore";
    });
    if (fields.length === 0) return fail("every hook chosen already has failurePolicy Ignore");
  } else if (req.mode === "exclude-namespaces") {
    const namespaces = [...new Set(req.namespaces ?? [])];
    if (namespaces.length === 0) return fail("name at least one namespace to exclude");
    const bad = namespaces.find((n) => n.length > 63 || !NAMESPACE_NAME.test(n));
    if (bad !== undefined) return fail(`${JSON.stringify(bad)} is not a namespace name`);
    next.forEach((h) => {
      const hookName = String(h.name ?? "");
      if (!targets.has(hookName)) return;
      const set = excludeNamespaces(h.namespaceSelector, namespaces);
      fields.push({
        hook: hookName,
        field: "namespaceSelector",
        original: clone(h.namespaceSelector) ?? null,
        set,
      });
      h.namespaceSelector = clone(set);
    });
  } else {
    const group = req.group?.trim() ?? "";
    if (!group) return fail("name the group to grant the breakglass verb to");
    const checks = hooks.map(breakglassCheckOf);
    const declared = checks.filter((c): c is BreakglassCheck => c !== undefined);
    if (declared.length === 0)
      return fail(
        `no hook chosen declares the breakglass authorization matchCondition (authorizer…check('${BREAKGLASS_VERB}').allowed())`,
      );
    const first = declared[0] as BreakglassCheck;
    if (
      declared.some(
        (c) =>
          c.apiGroup !== first.apiGroup ||
          c.resource !== first.resource ||
          c.resourceName !== first.resourceName,
      )
    )
      return fail(
        "the hooks chosen check the breakglass verb on different resources: choose one hook",
      );
    grant = {
      group,
      name: grantName(req.id),
      apiGroup: first.apiGroup,
      resource: first.resource,
      ...(first.resourceName !== undefined ? { resourceName: first.resourceName } : {}),
    };
  }
  const record: BreakGlassRecord = {
    ...base,
    fields,
    ...(req.mode === "exclude-namespaces" ? { namespaces: [...new Set(req.namespaces)] } : {}),
    ...(grant ? { grant } : {}),
  };
  const object = withAnnotation({ ...obj, webhooks: next }, formatRecord(record));
  return { ok: true, value: { object, record } };
}

/** The defaults the apiserver gives a binding's matchResources (v1 SetDefaults_MatchResources). */
function defaultedMatchResources(m: unknown): Record<string, unknown> {
  const r = isObj(m) ? clone(m) : {};
  return {
    ...r,
    namespaceSelector: isObj(r.namespaceSelector) ? r.namespaceSelector : {},
    objectSelector: isObj(r.objectSelector) ? r.objectSelector : {},
    matchPolicy: typeof r.matchPolicy === "string" ? r.matchPolicy : "Equivalent",
  };
}

const DENY = "Deny";
const RELAXED_ACTIONS = ["Warn", "Audit"];

/**
 * On a binding: `warn` sets validationActions to Warn and Audit where they hold Deny (the only
 * action that refuses); `exclude-namespaces` writes matchResources with the NotIn term added to
 * its namespaceSelector — whole, with the apiserver's defaults filled in, so that what the
 * apiserver stores is what the record says break-glass set.
 */
function planBindingBreakGlass(
  obj: ConfigurationObject,
  req: BreakGlassRequest,
): Planned<{ object: ConfigurationObject; record: BreakGlassRecord }> {
  const name = obj.metadata?.name ?? "";
  if (!isObj(obj.spec)) return fail(`${name} has no spec`);
  if (req.hook !== undefined && req.hook !== name)
    return fail(`a binding has no hooks: ${req.hook} is not ${name}`);
  const spec = clone(obj.spec) as Record<string, unknown>;
  const fields: FieldChange[] = [];
  let namespaces: string[] | undefined;
  if (req.mode === "warn") {
    const actions = Array.isArray(spec.validationActions)
      ? (spec.validationActions as unknown[]).map(String)
      : [];
    if (!actions.includes(DENY))
      return fail(
        `${name}'s validationActions (${actions.join(", ") || "none"}) do not deny: nothing to relax`,
      );
    const set = [...RELAXED_ACTIONS];
    fields.push({ hook: name, field: "validationActions", original: actions, set });
    spec.validationActions = set;
  } else {
    namespaces = [...new Set(req.namespaces ?? [])];
    if (namespaces.length === 0) return fail("name at least one namespace to exclude");
    const bad = namespaces.find((n) => n.length > 63 || !NAMESPACE_NAME.test(n));
    if (bad !== undefined) return fail(`${JSON.stringify(bad)} is not a namespace name`);
    const original = spec.matchResources === undefined ? null : clone(spec.matchResources);
    const defaulted = defaultedMatchResources(spec.matchResources);
    const set = {
      ...defaulted,
      namespaceSelector: excludeNamespaces(defaulted.namespaceSelector, namespaces),
    };
    fields.push({ hook: name, field: "matchResources", original, set });
    spec.matchResources = clone(set);
  }
  const record: BreakGlassRecord = {
    v: 1,
    id: req.id,
    mode: req.mode,
    resource: req.resource,
    name,
    hooks: [name],
    fields,
    ...(namespaces ? { namespaces } : {}),
    startedAt: req.now,
    expiresAt: req.now + req.durationMs,
    actor: req.actor,
    reason: req.reason,
  };
  const object = withAnnotation({ ...obj, spec }, formatRecord(record));
  return { ok: true, value: { object, record } };
}

/** A field a revert did not restore: someone changed it after break-glass. */
interface KeptField extends FieldChange {
  /** Its value now (null: the field or its hook is gone). */
  readonly now: unknown;
  readonly hookGone: boolean;
  /** The managers that own the field now (managedFields), newest first. */
  readonly changedBy: readonly Manager[];
}

export interface RevertPlan {
  /** The object to write; undefined when there is nothing to write. */
  readonly object?: ConfigurationObject;
  readonly restored: readonly FieldChange[];
  /** Fields found already back at their original (another revert, or a hand edit, did it). */
  readonly already: readonly FieldChange[];
  readonly kept: readonly KeptField[];
}

/** The provenance section of a hook: its name, or a binding's `spec`. */
const sectionOf = (binding: boolean, hook: string) => (binding ? "spec" : hook);

function ownersOf(obj: ConfigurationObject, section: string, field: BreakGlassField): Manager[] {
  const found = configurationProvenance(obj).sections.find((s) => s.name === section);
  const out = new Map<string, Manager>();
  for (const t of found?.terms ?? [])
    if (t.field === field || t.field.startsWith(`${field}.`) || t.field.startsWith(`${field}[`))
      for (const o of [...t.owners, ...(t.unitOwners ?? [])]) out.set(o.manager, o);
  return [...out.values()].sort((a, b) => (b.time ?? "").localeCompare(a.time ?? ""));
}

/**
 * What a revert writes: each field break-glass changed is set back to its original only if it
 * still holds what break-glass set (compared field by field, canonically); the others are kept
 * as they are and reported with who owns them now. `force` names fields (`hook/field`) to restore
 * even so — the user's answer when asked. The annotation is removed when it is this record's.
 */
export function planRevert(
  current: ConfigurationObject,
  record: BreakGlassRecord,
  force: ReadonlySet<string> = new Set(),
): RevertPlan {
  const binding = isBindingBreakGlass(record.resource);
  const hooks = clone(current.webhooks ?? []) as Array<Record<string, unknown>>;
  // A binding's fields live in its spec: the binding is its one "hook".
  const spec =
    binding && isObj(current.spec) ? (clone(current.spec) as Record<string, unknown>) : undefined;
  const holderOf = (hook: string): Record<string, unknown> | undefined =>
    binding ? (hook === record.name ? spec : undefined) : hooks.find((x) => x.name === hook);
  const restored: FieldChange[] = [];
  const already: FieldChange[] = [];
  const kept: KeptField[] = [];
  for (const f of record.fields) {
    const h = holderOf(f.hook);
    const now = h ? (h[f.field] ?? null) : null;
    const forced = force.has(`${f.hook}/${f.field}`);
    if (h && canonicalJson(now) === canonicalJson(f.original)) {
      already.push(f);
    } else if (h && (forced || canonicalJson(now) === canonicalJson(f.set))) {
      if (f.original === null) delete h[f.field];
      else h[f.field] = clone(f.original);
      restored.push(f);
    } else {
      kept.push({
        ...f,
        now,
        hookGone: !h,
        changedBy: h ? ownersOf(current, sectionOf(binding, f.hook), f.field) : [],
      });
    }
  }
  const ours = activeRecord(current)?.id === record.id;
  if (restored.length === 0 && !ours) return { restored, already, kept };
  const base =
    restored.length === 0
      ? current
      : binding
        ? { ...current, spec }
        : { ...current, webhooks: hooks };
  return { object: ours ? withAnnotation(base, undefined) : base, restored, already, kept };
}

/** The label the grant's RBAC objects carry, so they can be found again. */
export const BREAK_GLASS_LABEL = "portcullis.dev/break-glass-id";
