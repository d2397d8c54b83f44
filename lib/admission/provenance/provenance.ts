/**
 * Who wrote each part of an admission configuration, from its metadata.managedFields.
 *
 * What field ownership can tell, per the apiserver's OpenAPI (k8s.io/api v0.37.2, read by the
 * apiserver's field manager through x-kubernetes-list-type / x-kubernetes-map-type):
 * - `webhooks` is a map list keyed by `name`: each hook is owned apart, and each of its scalar
 *   fields (failurePolicy, timeoutSeconds, clientConfig.caBundle, clientConfig.service.port…);
 * - `matchConditions` (hooks and policies) and `variables` (policies) are map lists keyed by
 *   `name`: each condition is owned apart, its expression too;
 * - `namespaceSelector` and `objectSelector` are LabelSelectors, an atomic struct: the whole
 *   selector is one field, owned by whoever last changed it (an Update takes it from everyone;
 *   Appliers of the same value share it). One requirement cannot be told from another by field
 *   ownership; `rules`, `admissionReviewVersions`, `validations`, `auditAnnotations` are atomic
 *   lists, and a policy's `matchConstraints` / a binding's `matchResources` atomic structs;
 *   `validationActions` is a set (each value owned apart).
 * Where the owned unit is atomic, each selector requirement is attributed, in order, by the
 * applied intent (the `kubectl.kubernetes.io/last-applied-configuration` annotation, whose writer
 * declared that term or not), then by a known platform's signature (the requirements the AKS
 * admissions enforcer adds, when that manager owns the selector), else only to the selector's
 * owner as a whole. Each term says which of these granularities applies.
 *
 * The creator: the manager (main resource, not a subresource) that owns the most hooks as items
 * (`.` of `webhooks[name=…]`: it put the hook in the list), or for a policy or binding the most
 * members under `spec`; ties go to the earliest `time`, then an Apply before an Update, then the
 * name. An injected term is one attributed to managers of which none is the creator.
 */
import {
  canonicalJson,
  membersOf,
  pathString,
  startsWith,
  valueAt,
  type FieldPath,
  type PathElement,
} from "./fields-v1";
import { platformOf, platformOfRequirement, type Platform } from "./platforms";

/** One metadata.managedFields entry as the apiserver returns it. */
export interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly apiVersion?: string;
  readonly time?: string;
  readonly fieldsType?: string;
  readonly fieldsV1?: unknown;
  readonly subresource?: string;
}

/** A manager as a term names it. */
export interface Manager {
  readonly manager: string;
  readonly operation: string;
  /** Last time this manager changed the object (second precision), if recorded. */
  readonly time?: string;
  readonly subresource?: string;
}

/**
 * How finely a term's writer is known: `field` the term is a field the apiserver tracks; `item`
 * a keyed list item (a matchCondition, a variable); `atomic-intent` a requirement of an atomic
 * selector attributed by the last applied configuration; `atomic-signature` by a known platform's
 * requirements; `atomic` only the whole selector's owner is known.
 */
export type Granularity = "field" | "item" | "atomic-intent" | "atomic-signature" | "atomic";

/** What a known platform is, as a term names it. */
interface PlatformRef {
  readonly name: string;
  readonly does: string;
  readonly optOut?: string;
}

export interface ProvenanceTerm {
  /** Where the term sits (for requirements of an atomic selector, the requirement by its fields). */
  readonly term: string;
  /** The field path the apiserver tracks the owner of (the selector, for its requirements). */
  readonly ownedPath: string;
  /** The term relative to its hook or spec: `namespaceSelector`, `clientConfig.caBundle`. */
  readonly field: string;
  /** The term in words: `control-plane NotIn [true]`, `matchCondition skip-leases: …`, a value. */
  readonly text: string;
  /** The managers the term is attributed to. */
  readonly owners: readonly Manager[];
  /** The owners of `ownedPath`, when they differ from `owners` (atomic units). */
  readonly unitOwners?: readonly Manager[];
  readonly granularity: Granularity;
  /** Set when none of `owners` created the configuration. */
  readonly injected?: { readonly by: string; readonly platform?: PlatformRef };
  /** Locates the term in another version of the object (see termChanged). */
  readonly at: FieldPath;
  /** The term's value now (undefined: absent). */
  readonly value: unknown;
}

export interface SectionProvenance {
  /** The hook's name, or `spec` for a policy or binding. */
  readonly name: string;
  readonly terms: readonly ProvenanceTerm[];
}

export interface ConfigurationProvenance {
  readonly creator?: { readonly manager: Manager; readonly reason: string };
  /** Every manager of the object (main resource and subresources). */
  readonly managers: readonly Manager[];
  /** One per hook (webhook configurations) or one `spec` (policies and bindings). */
  readonly sections: readonly SectionProvenance[];
  /** The writer of the last-applied annotation, when present: whose intent atomic terms use. */
  readonly declaredBy?: string;
  /** Known platforms among the managers, with their opt-outs. */
  readonly platforms: readonly PlatformRef[];
}

/** The object shapes read here. */
export interface ManagedObject {
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly managedFields?: readonly ManagedFieldsEntry[];
  };
  readonly [key: string]: unknown;
}

export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

interface Owned {
  readonly manager: Manager;
  readonly members: readonly FieldPath[];
  /** pathString of every member. */
  readonly set: ReadonlySet<string>;
}

function managerOf(e: ManagedFieldsEntry): Manager {
  return {
    manager: e.manager ?? "",
    operation: e.operation ?? "",
    ...(e.time ? { time: e.time } : {}),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  };
}

function ownedSets(entries: readonly ManagedFieldsEntry[]): Owned[] {
  return entries
    .filter((e) => (e.fieldsType ?? "FieldsV1") === "FieldsV1")
    .map((e) => {
      const members = membersOf(e.fieldsV1);
      return { manager: managerOf(e), members, set: new Set(members.map(pathString)) };
    });
}

const f = (field: string): PathElement => ({ field });

function ownersOf(owned: readonly Owned[], path: FieldPath): Manager[] {
  const p = pathString(path);
  return owned.filter((o) => o.set.has(p)).map((o) => o.manager);
}

/** The owners of `path` or of its nearest owned ancestor, and that ancestor. */
function nearestOwners(
  owned: readonly Owned[],
  path: FieldPath,
): { path: FieldPath; owners: Manager[] } {
  for (let n = path.length; n > 0; n--) {
    const prefix = path.slice(0, n);
    const owners = ownersOf(owned, prefix);
    if (owners.length > 0) return { path: prefix, owners };
  }
  return { path, owners: [] };
}

function earlier(a?: string, b?: string): number {
  if (a && b) return a < b ? -1 : a > b ? 1 : 0;
  return a ? -1 : b ? 1 : 0;
}

function pickCreator(
  owned: readonly Owned[],
  counts: (o: Owned) => number,
): { manager: Manager; count: number } | undefined {
  const ranked = owned
    .filter((o) => !o.manager.subresource && o.manager.manager !== "")
    .map((o) => ({ manager: o.manager, count: counts(o) }))
    .filter((r) => r.count > 0)
    .sort(
      (a, b) =>
        b.count - a.count ||
        earlier(a.manager.time, b.manager.time) ||
        (a.manager.operation === "Apply" ? 0 : 1) - (b.manager.operation === "Apply" ? 0 : 1) ||
        a.manager.manager.localeCompare(b.manager.manager),
    );
  return ranked[0];
}

function isHookItem(p: FieldPath): boolean {
  return p.length === 2 && "field" in p[0]! && p[0].field === "webhooks" && "key" in p[1]!;
}

function under(p: FieldPath, root: FieldPath): boolean {
  return p.length > root.length && startsWith(p, root);
}

function creatorOf(
  owned: readonly Owned[],
  hooks: boolean,
): ConfigurationProvenance["creator"] | undefined {
  if (hooks) {
    const c = pickCreator(owned, (o) => o.members.filter(isHookItem).length);
    if (c)
      return {
        manager: c.manager,
        reason: `owns ${c.count} hook${c.count === 1 ? "" : "s"} as list items (it put them in the list)`,
      };
  }
  const spec = [f(hooks ? "webhooks" : "spec")];
  const c = pickCreator(owned, (o) => o.members.filter((m) => under(m, spec)).length);
  return c
    ? {
        manager: c.manager,
        reason: `owns the most fields under ${hooks ? "webhooks" : "spec"} (${c.count})`,
      }
    : undefined;
}

function platformRef(p: Platform): PlatformRef {
  return { name: p.name, does: p.does, ...(p.optOut ? { optOut: p.optOut } : {}) };
}

function short(v: unknown): string {
  if (typeof v === "string") return v.length > 60 ? `${v.slice(0, 57)}…` : v;
  const s = JSON.stringify(v) ?? "";
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

function relative(path: FieldPath, root: FieldPath): string {
  return pathString(path.slice(root.length)).replace(/^\./, "");
}

const SELECTORS: Record<"hook" | "spec", readonly FieldPath[]> = {
  hook: [[f("namespaceSelector")], [f("objectSelector")]],
  spec: [
    [f("matchConstraints"), f("namespaceSelector")],
    [f("matchConstraints"), f("objectSelector")],
    [f("matchResources"), f("namespaceSelector")],
    [f("matchResources"), f("objectSelector")],
  ],
};
/** Map lists keyed by name whose items are shown as one term each. */
const KEYED_ITEMS = ["matchConditions", "variables"];

interface Requirement {
  key?: unknown;
  operator?: unknown;
  values?: unknown;
}

function requirementText(r: Requirement): string {
  const values = Array.isArray(r.values) ? ` [${(r.values as unknown[]).join(", ")}]` : "";
  return `${String(r.key)} ${String(r.operator)}${values}`;
}

function sameRequirement(a: Requirement, b: Requirement): boolean {
  return (
    JSON.stringify([a.key, a.operator, a.values ?? null]) ===
    JSON.stringify([b.key, b.operator, b.values ?? null])
  );
}

interface Context {
  readonly owned: readonly Owned[];
  readonly creator?: string;
  readonly obj: ManagedObject;
  /** The last applied configuration, when annotated. */
  readonly intent?: ManagedObject;
  readonly declaredBy?: string;
}

function injectedFor(
  ctx: Context,
  owners: readonly Manager[],
): ProvenanceTerm["injected"] | undefined {
  if (!ctx.creator || owners.length === 0) return undefined;
  if (owners.some((o) => o.manager === ctx.creator)) return undefined;
  const by = owners[0]!.manager;
  const platform = platformOf(by);
  return { by, ...(platform ? { platform: platformRef(platform) } : {}) };
}

/** The terms of one atomic selector: one per matchLabels entry and per requirement. */
function selectorTerms(
  ctx: Context,
  root: FieldPath,
  intentRoot: unknown,
  sel: FieldPath,
): ProvenanceTerm[] {
  const full = [...root, ...sel];
  const value = valueAt(ctx.obj, full) as
    { matchLabels?: Record<string, string>; matchExpressions?: Requirement[] } | undefined;
  if (!value || typeof value !== "object") return [];
  const unit = nearestOwners(ctx.owned, full);
  const declared =
    intentRoot === undefined
      ? undefined
      : ((valueAt(intentRoot, sel) as
          { matchLabels?: Record<string, string>; matchExpressions?: Requirement[] } | undefined) ??
        {});
  const declarer = ctx.declaredBy
    ? (unit.owners.find((o) => o.manager === ctx.declaredBy) ??
      ctx.owned.find((o) => o.manager.manager === ctx.declaredBy)?.manager)
    : undefined;
  const others = unit.owners.filter((o) => o.manager !== ctx.declaredBy);
  const attribute = (
    inIntent: boolean | undefined,
    platform: Platform | undefined,
  ): { owners: Manager[]; granularity: Granularity } => {
    if (inIntent !== undefined && declarer) {
      if (inIntent) return { owners: [declarer], granularity: "atomic-intent" };
      if (others.length > 0) return { owners: others, granularity: "atomic-intent" };
    }
    const byPlatform = platform && unit.owners.filter((o) => platform.managers.includes(o.manager));
    if (byPlatform && byPlatform.length > 0)
      return { owners: byPlatform, granularity: "atomic-signature" };
    return { owners: unit.owners, granularity: "atomic" };
  };
  const terms: ProvenanceTerm[] = [];
  const field = relative(full, root);
  const push = (
    at: FieldPath,
    text: string,
    termValue: unknown,
    a: { owners: Manager[]; granularity: Granularity },
  ) => {
    const injected = injectedFor(ctx, a.owners);
    const sameOwners =
      a.owners.length === unit.owners.length && a.owners.every((o) => unit.owners.includes(o));
    terms.push({
      term: pathString(at),
      ownedPath: pathString(unit.path),
      field,
      text,
      owners: a.owners,
      ...(sameOwners ? {} : { unitOwners: unit.owners }),
      granularity: a.granularity,
      ...(injected ? { injected } : {}),
      at,
      value: termValue,
    });
  };
  for (const [k, v] of Object.entries(value.matchLabels ?? {})) {
    const inIntent = declared ? declared.matchLabels?.[k] === v : undefined;
    push([...full, f("matchLabels"), f(k)], `${k}=${v}`, v, attribute(inIntent, undefined));
  }
  for (const r of value.matchExpressions ?? []) {
    const inIntent = declared
      ? (declared.matchExpressions ?? []).some((d) => sameRequirement(d, r))
      : undefined;
    const key: Record<string, unknown> = { key: r.key, operator: r.operator };
    if (r.values !== undefined) key["values"] = r.values;
    push(
      [...full, f("matchExpressions"), { key }],
      requirementText(r),
      r,
      attribute(inIntent, platformOfRequirement(r)),
    );
  }
  if (terms.length === 0) push(full, "{} (every object)", value, attribute(undefined, undefined));
  return terms;
}

function sectionTerms(
  ctx: Context,
  root: FieldPath,
  intentRoot: unknown,
  kind: "hook" | "spec",
): ProvenanceTerm[] {
  const members = new Map<string, FieldPath>();
  for (const o of ctx.owned)
    for (const m of o.members) if (under(m, root)) members.set(pathString(m), m);
  const all = [...members.values()];
  const selectors = SELECTORS[kind].map((s) => [...root, ...s]);
  const terms: ProvenanceTerm[] = [];
  const items = new Map<string, FieldPath>();
  for (const m of all) {
    const rel = m.slice(root.length);
    // The hook's own key is the hook: not a term.
    if (kind === "hook" && rel.length === 1 && "field" in rel[0]! && rel[0].field === "name")
      continue;
    // Selectors are expanded into their requirements below.
    if (selectors.some((s) => startsWith(m, s))) continue;
    const first = rel[0];
    if (first && "field" in first && KEYED_ITEMS.includes(first.field) && rel.length >= 2) {
      const item = m.slice(0, root.length + 2);
      items.set(pathString(item), item);
      continue;
    }
    // A member with members below it is told by its children.
    const p = pathString(m);
    if (all.some((o) => o.length > m.length && pathString(o.slice(0, m.length)) === p)) continue;
    const owners = ownersOf(ctx.owned, m);
    const value = valueAt(ctx.obj, m);
    const injected = injectedFor(ctx, owners);
    terms.push({
      term: p,
      ownedPath: p,
      field: relative(m, root),
      text: short(value),
      owners,
      granularity: "field",
      ...(injected ? { injected } : {}),
      at: m,
      value,
    });
  }
  for (const item of items.values()) {
    const p = pathString(item);
    // Who added the item (its `.`), then whoever changed its fields.
    const addedBy = ownersOf(ctx.owned, item);
    const changed = ctx.owned
      .filter((o) => o.members.some((m) => m.length > item.length && startsWith(m, item)))
      .map((o) => o.manager)
      .filter((m) => !addedBy.includes(m));
    const owners = [...addedBy, ...changed];
    const value = valueAt(ctx.obj, item) as { name?: string; expression?: string } | undefined;
    const list = (item[item.length - 2] as { field: string }).field;
    const label = list === "matchConditions" ? "matchCondition" : "variable";
    const injected = injectedFor(ctx, addedBy.length > 0 ? addedBy : owners);
    terms.push({
      term: p,
      ownedPath: p,
      field: relative(item, root),
      text: `${label} ${value?.name ?? "?"}: ${short(value?.expression ?? "")}`,
      owners,
      granularity: "item",
      ...(injected ? { injected } : {}),
      at: item,
      value,
    });
  }
  for (const sel of SELECTORS[kind]) terms.push(...selectorTerms(ctx, root, intentRoot, sel));
  return terms;
}

function parseIntent(obj: ManagedObject): ManagedObject | undefined {
  const text = obj.metadata?.annotations?.[LAST_APPLIED];
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" ? (parsed as ManagedObject) : undefined;
  } catch {
    return undefined;
  }
}

/** The provenance of a webhook configuration, an admission policy or a binding. */
export function configurationProvenance(obj: ManagedObject): ConfigurationProvenance {
  const entries = obj.metadata?.managedFields ?? [];
  const owned = ownedSets(entries);
  const hooks = Array.isArray(obj["webhooks"]);
  const creator = creatorOf(owned, hooks);
  const intent = parseIntent(obj);
  const annotationPath = [f("metadata"), f("annotations"), f(LAST_APPLIED)];
  const declaredBy = intent ? ownersOf(owned, annotationPath)[0]?.manager : undefined;
  const ctx: Context = {
    owned,
    obj,
    ...(creator ? { creator: creator.manager.manager } : {}),
    ...(intent ? { intent } : {}),
    ...(declaredBy ? { declaredBy } : {}),
  };
  const sections: SectionProvenance[] = [];
  if (hooks) {
    for (const h of obj["webhooks"] as Array<{ name?: string }>) {
      const name = h?.name ?? "";
      const root: FieldPath = [f("webhooks"), { key: { name } }];
      const intentHook = intent
        ? (((intent["webhooks"] as Array<{ name?: string }> | undefined) ?? []).find(
            (w) => w?.name === name,
          ) ?? {})
        : undefined;
      sections.push({ name, terms: sectionTerms(ctx, root, intentHook, "hook") });
    }
  } else if (obj["spec"] && typeof obj["spec"] === "object") {
    sections.push({
      name: "spec",
      terms: sectionTerms(ctx, [f("spec")], intent ? (intent["spec"] ?? {}) : undefined, "spec"),
    });
  }
  const platforms = new Map<string, PlatformRef>();
  for (const o of owned) {
    const p = platformOf(o.manager.manager);
    if (p) platforms.set(p.name, platformRef(p));
  }
  return {
    ...(creator ? { creator } : {}),
    managers: owned.map((o) => o.manager),
    sections,
    ...(declaredBy ? { declaredBy } : {}),
    platforms: [...platforms.values()],
  };
}

/** Does `after` (another version of the object) change or drop this term? */
function termChanged(term: ProvenanceTerm, after: unknown): boolean {
  return canonicalJson(valueAt(after, term.at)) !== canonicalJson(term.value);
}

/** The injected terms an edit from the provenance's object to `after` changes or removes. */
export function injectedTermsChanged(
  provenance: ConfigurationProvenance,
  after: unknown,
): Array<{ section: string; term: ProvenanceTerm }> {
  const out: Array<{ section: string; term: ProvenanceTerm }> = [];
  for (const s of provenance.sections)
    for (const t of s.terms)
      if (t.injected && termChanged(t, after)) out.push({ section: s.name, term: t });
  return out;
}
