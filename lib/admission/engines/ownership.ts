/**
 * Which engine owns each webhook configuration, each hook in it, each admission policy and each
 * binding, which engine policy it carries, and how sure that is. Every clue is written the way the
 * engine's own source writes it; the file next to each rule is where (Gatekeeper v3.23.1,
 * Kyverno v1.19.1, kubewarden-controller at 3460bb71).
 *
 * Certainty: an owner reference to an engine policy is `proof`; a field manager, label or
 * annotation the engine writes is `strong`; a name the engine would choose is a `guess`.
 */
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import {
  GATEKEEPER_CONSTRAINTS_GROUP,
  GATEKEEPER_TEMPLATES_GROUP,
  KUBEWARDEN_GROUP,
  KYVERNO_GROUP,
  KYVERNO_POLICIES_GROUP,
  NO_ENGINE_SOURCES,
  engineOfGroup,
  sourceKindOf,
  type EngineSources,
} from "@/lib/admission/engines/sources";
import {
  ownedKey,
  sourceKey,
  strongest,
  weakest,
  type Certainty,
  type EngineName,
  type EngineOwnership,
  type OwnedKind,
  type OwnedObject,
  type SourcePolicyRef,
} from "@/lib/admission/engines/types";
import {
  field,
  groupOf,
  list,
  metaOf,
  record,
  str,
  type Meta,
} from "@/lib/admission/engines/unstructured";

/** The configuration lists ownership is read from (a snapshot has them all). */
export type OwnershipInput = Pick<
  AdmissionSnapshot,
  | "validatingWebhookConfigurations"
  | "mutatingWebhookConfigurations"
  | "validatingAdmissionPolicies"
  | "validatingAdmissionPolicyBindings"
  | "mutatingAdmissionPolicies"
  | "mutatingAdmissionPolicyBindings"
>;

/** Everything recognised, by `ownedKey`. Plain data (JSON-safe). */
export interface EngineOwnershipIndex {
  readonly objects: Readonly<Record<string, OwnedObject>>;
  /**
   * The namespaces each engine's hooks call their service in (its own namespace), from the hooks
   * owned at least `strong`ly.
   */
  readonly engineNamespaces: Readonly<Partial<Record<EngineName, readonly string[]>>>;
}

/** The ownership of one object, or of one hook (position) of a configuration. */
export function ownershipOf(
  index: EngineOwnershipIndex,
  kind: OwnedKind,
  name: string,
  position?: number,
): EngineOwnership | undefined {
  return index.objects[ownedKey(kind, name, position)]?.ownership;
}

// ---------------------------------------------------------------------------------------------
// The engines' marks.

/** Kyverno: api/kyverno/constants.go LabelWebhookManagedBy = ValueKyvernoApp, set by pkg/controllers/webhook/utils.go objectMeta on every webhook configuration it writes. */
const KYVERNO_WEBHOOK_LABEL = "webhook.kyverno.io/managed-by";
/** Kyverno: pkg/utils/controller/metadata.go SetManagedByKyvernoLabel on generated policies and bindings (pkg/admissionpolicy/builder.go). */
const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
const KYVERNO_VALUE = "kyverno";
/** Kubewarden: internal/constants/constants.go PartOfLabelKey/PartOfLabelValue, set by internal/controller/policy_subreconciler_webhook.go. */
const KUBEWARDEN_PART_OF_LABEL = "app.kubernetes.io/part-of";
const KUBEWARDEN_VALUE = "kubewarden";
/** Kubewarden: internal/constants/constants.go WebhookConfigurationPolicyName/NamespaceAnnotationKey. */
const KUBEWARDEN_NAME_ANNOTATION = "kubewardenPolicyName";
const KUBEWARDEN_NAMESPACE_ANNOTATION = "kubewardenPolicyNamespace";
/** Gatekeeper: deploy/gatekeeper.yaml labels both its webhook configurations `gatekeeper.sh/system: "yes"` (the installer writes it, the controller keeps it). */
const GATEKEEPER_SYSTEM_LABEL = "gatekeeper.sh/system";

/**
 * Field managers. The apiserver names a manager after the client's user agent up to its first
 * `/`: Kyverno's is `Kyverno/<version> …` (pkg/config/client.go withUserAgent) and its server-side
 * applies use `kyverno-<controller>` (pkg/clients/dclient/client.go); Gatekeeper's is
 * `gatekeeper/<version> …` (main.go, pkg/version/version.go GetUserAgent). Kubewarden's
 * controller binary is `controller` (Dockerfile.controller), too common a name to count.
 */
function managerEngine(manager: string): EngineName | undefined {
  if (manager === "Kyverno" || manager.startsWith("kyverno-")) return "kyverno";
  if (manager === "gatekeeper") return "gatekeeper";
  return undefined;
}

/** Kyverno: pkg/config/config.go, the webhook configuration names. */
const KYVERNO_CONFIGURATIONS = new Set([
  "kyverno-policy-validating-webhook-cfg",
  "kyverno-resource-validating-webhook-cfg",
  "kyverno-exception-validating-webhook-cfg",
  "kyverno-cel-exception-validating-webhook-cfg",
  "kyverno-global-context-validating-webhook-cfg",
  "kyverno-cleanup-validating-webhook-cfg",
  "kyverno-policy-mutating-webhook-cfg",
  "kyverno-resource-mutating-webhook-cfg",
  "kyverno-verify-mutating-webhook-cfg",
  "kyverno-ttl-validating-webhook-cfg",
]);
/** Gatekeeper: pkg/webhook/common.go VwhName / MwhName flag defaults. */
const GATEKEEPER_CONFIGURATIONS = new Set([
  "gatekeeper-validating-webhook-configuration",
  "gatekeeper-mutating-webhook-configuration",
]);
/** Kubewarden: api/policies/v1/*_types.go GetUniqueName. */
const KUBEWARDEN_CONFIGURATION = /^(clusterwide|namespaced)-/;
/** Hook names: Kyverno pkg/config/config.go (`….kyverno.svc`), Gatekeeper pkg/webhook (`….gatekeeper.sh`), Kubewarden policy_subreconciler_webhook.go (`<unique name>.kubewarden.admission`). */
const HOOK_NAME: ReadonlyArray<readonly [RegExp, EngineName]> = [
  [/\.kyverno\.svc(-|$)/, "kyverno"],
  [/\.gatekeeper\.sh$/, "gatekeeper"],
  [/\.kubewarden\.admission$/, "kubewarden"],
];

/**
 * Kyverno's per-policy hooks (pkg/controllers/webhook/utils.go webhookNameAndPath): name
 * `validate.kyverno.svc-fail-finegrained-<ns>-<name>`, path `/validate/fail/finegrained/<ns>/<name>`.
 */
const KYVERNO_FINEGRAINED_PATH = /^\/(validate|mutate)\/(fail|ignore)\/finegrained\/(.+)$/;
const KYVERNO_FINEGRAINED_NAME = /^(validate|mutate)\.kyverno\.svc-(fail|ignore)-finegrained-(.+)$/;
/**
 * Kyverno's CEL policy hooks (pkg/controllers/webhook/controller.go buildWebhookRules callers,
 * validating.go): path `/<prefix>/<name>` (fine-grained) or `/<prefix>/<name>/<name>…` (the
 * policies sharing the hook, sorted), name `<prefix>.validate.kyverno.svc-fail[-<8 hex>]` or
 * `…-fail-finegrained-[<ns>-]<name>` (validating.go generateName).
 */
const KYVERNO_CEL_PREFIX: Readonly<Record<string, string>> = {
  vpol: "ValidatingPolicy",
  nvpol: "NamespacedValidatingPolicy",
  mpol: "MutatingPolicy",
  nmpol: "NamespacedMutatingPolicy",
  gpol: "GeneratingPolicy",
  ngpol: "NamespacedGeneratingPolicy",
  ivpol: "ImageValidatingPolicy",
  nivpol: "NamespacedImageValidatingPolicy",
};
const KYVERNO_CEL_FINEGRAINED = /-(?:fail|ignore)-finegrained-(.+)$/;

/** Generated policy names: Kyverno pkg/controllers/admissionpolicygenerator/generate-vap.go, generate-map.go. */
const KYVERNO_GENERATED: ReadonlyArray<readonly [string, string, string]> = [
  ["cpol-", KYVERNO_GROUP, "ClusterPolicy"],
  ["vpol-", KYVERNO_POLICIES_GROUP, "ValidatingPolicy"],
  ["mpol-", KYVERNO_POLICIES_GROUP, "MutatingPolicy"],
];
/** Kyverno bindings: pkg/controllers/admissionpolicygenerator/utils.go constructBindingName. */
const KYVERNO_BINDING_SUFFIX = "-binding";
/** Gatekeeper: pkg/drivers/k8scel/transform/make_vap_objects.go `gatekeeper-<template>`, bindings `gatekeeper-<kind>-<constraint>`. */
const GATEKEEPER_PREFIX = "gatekeeper-";

// ---------------------------------------------------------------------------------------------
// Collecting clues.

interface Clue {
  readonly engine: EngineName;
  readonly certainty: Certainty;
  readonly evidence: string;
}

interface SourceClue {
  readonly ref: SourcePolicyRef;
  readonly certainty: Certainty;
}

/** Resolves refs against the source policies read (their served apiVersion, their namespace). */
class Resolver {
  /** group → kind → name → the policies read (several namespaces may share a name). */
  private readonly index = new Map<string, Map<string, Map<string, SourcePolicyRef[]>>>();
  private readonly constraintKinds = new Map<string, string>();
  private readonly read = new Set<SourcePolicyRef>();

  constructor(sources: EngineSources) {
    for (const p of sources.policies) {
      const group = groupOf(p.ref.apiVersion);
      const byKind = this.index.get(group) ?? new Map<string, Map<string, SourcePolicyRef[]>>();
      this.index.set(group, byKind);
      const byName = byKind.get(p.ref.kind) ?? new Map<string, SourcePolicyRef[]>();
      byKind.set(p.ref.kind, byName);
      const same = byName.get(p.ref.name);
      if (same) same.push(p.ref);
      else byName.set(p.ref.name, [p.ref]);
      this.read.add(p.ref);
      if (p.type === "gatekeeper-template" && p.constraintKind)
        this.constraintKinds.set(p.constraintKind.toLowerCase(), p.constraintKind);
      if (p.type === "gatekeeper-constraint")
        this.constraintKinds.set(p.ref.kind.toLowerCase(), p.ref.kind);
    }
  }

  /** A ref to `group/kind [ns/]name`: the read one when there is one, else the preferred version. */
  ref(group: string, kind: string, name: string, namespace?: string): SourcePolicyRef | undefined {
    const known = sourceKindOf(group, kind);
    if (!known) return undefined;
    const ns = known.namespaced && namespace ? namespace : undefined;
    const same = this.index.get(group)?.get(kind)?.get(name);
    if (same) {
      if (!known.namespaced) return same[0];
      if (ns === undefined) return same.length === 1 ? same[0] : undefined;
      for (const r of same) if (r.namespace === ns) return r;
    }
    // A namespaced policy named without its namespace, and not read: unknown.
    if (known.namespaced && !ns) return undefined;
    return {
      engine: known.engine,
      apiVersion: `${group}/${known.versions[0]}`,
      kind,
      namespace: ns,
      name,
    };
  }

  /** Whether the ref is one of the policies read. */
  has(ref: SourcePolicyRef): boolean {
    return this.read.has(ref);
  }

  /** A Constraint's kind from its lowercased form (templates and constraints read). */
  constraintKind(lower: string): string | undefined {
    return this.constraintKinds.get(lower);
  }
}

const RESOLVERS = new WeakMap<EngineSources, Resolver>();

/** One resolver per (immutable) set of sources. */
function resolverFor(sources: EngineSources): Resolver {
  let r = RESOLVERS.get(sources);
  if (!r) {
    r = new Resolver(sources);
    RESOLVERS.set(sources, r);
  }
  return r;
}

/** Owner references to an engine's policy (proof), or to Kyverno's webhook ClusterRole. */
function ownerClues(meta: Meta, r: Resolver): { clues: Clue[]; sources: SourceClue[] } {
  const clues: Clue[] = [];
  const sources: SourceClue[] = [];
  for (const o of meta.ownerReferences) {
    const group = groupOf(o.apiVersion);
    const engine = engineOfGroup(group);
    if (engine) {
      clues.push({
        engine,
        certainty: "proof",
        evidence: `owner reference to ${o.kind} ${o.name}`,
      });
      const known = sourceKindOf(group, o.kind);
      if (known) {
        const ns = known.namespaced ? meta.namespace : undefined;
        const read = r.ref(group, o.kind, o.name, ns);
        sources.push({
          ref:
            read && r.has(read)
              ? read
              : {
                  engine,
                  apiVersion: o.apiVersion,
                  kind: o.kind,
                  namespace: ns,
                  name: o.name,
                },
          certainty: "proof",
        });
      }
    } else if (
      o.kind === "ClusterRole" &&
      o.apiVersion.startsWith("rbac.authorization.k8s.io/") &&
      /:webhook$/.test(o.name)
    ) {
      // pkg/controllers/webhook/controller.go buildOwner: the `*:webhook` ClusterRole of Kyverno.
      clues.push({
        engine: "kyverno",
        certainty: "strong",
        evidence: `owner reference to ClusterRole ${o.name}, the role Kyverno makes its webhook configurations' owner`,
      });
    }
  }
  return { clues, sources };
}

function metaClues(meta: Meta): Clue[] {
  const clues: Clue[] = [];
  if (meta.labels[KYVERNO_WEBHOOK_LABEL] === KYVERNO_VALUE)
    clues.push({
      engine: "kyverno",
      certainty: "strong",
      evidence: `label ${KYVERNO_WEBHOOK_LABEL}=${KYVERNO_VALUE}`,
    });
  if (meta.labels[MANAGED_BY_LABEL] === KYVERNO_VALUE)
    clues.push({
      engine: "kyverno",
      certainty: "strong",
      evidence: `label ${MANAGED_BY_LABEL}=${KYVERNO_VALUE}`,
    });
  if (meta.labels[KUBEWARDEN_PART_OF_LABEL] === KUBEWARDEN_VALUE)
    clues.push({
      engine: "kubewarden",
      certainty: "strong",
      evidence: `label ${KUBEWARDEN_PART_OF_LABEL}=${KUBEWARDEN_VALUE}`,
    });
  if (meta.labels[GATEKEEPER_SYSTEM_LABEL] === "yes")
    clues.push({
      engine: "gatekeeper",
      certainty: "strong",
      evidence: `label ${GATEKEEPER_SYSTEM_LABEL}=yes`,
    });
  if (str(meta.annotations[KUBEWARDEN_NAME_ANNOTATION]) !== undefined)
    clues.push({
      engine: "kubewarden",
      certainty: "strong",
      evidence: `annotation ${KUBEWARDEN_NAME_ANNOTATION}=${str(meta.annotations[KUBEWARDEN_NAME_ANNOTATION])}`,
    });
  for (const m of meta.managers) {
    const engine = managerEngine(m);
    if (engine) clues.push({ engine, certainty: "strong", evidence: `field manager ${m}` });
  }
  return clues;
}

/** The engine most clues point to: the most certain, then the most clues. */
function decide(
  clues: readonly Clue[],
): { engine: EngineName; certainty: Certainty; evidence: string[] } | undefined {
  if (clues.length === 0) return undefined;
  if (clues.length === 1) {
    const c = clues[0]!;
    return { engine: c.engine, certainty: c.certainty, evidence: [c.evidence] };
  }
  const by = new Map<EngineName, { certainty: Certainty; evidence: string[] }>();
  for (const c of clues) {
    const e = by.get(c.engine);
    if (e) {
      e.certainty = strongest(e.certainty, c.certainty);
      if (!e.evidence.includes(c.evidence)) e.evidence.push(c.evidence);
    } else by.set(c.engine, { certainty: c.certainty, evidence: [c.evidence] });
  }
  const rank = { proof: 3, strong: 2, guess: 1 } as const;
  let best: { engine: EngineName; certainty: Certainty; evidence: string[] } | undefined;
  for (const [engine, v] of by) {
    if (
      !best ||
      rank[v.certainty] > rank[best.certainty] ||
      (rank[v.certainty] === rank[best.certainty] && v.evidence.length > best.evidence.length)
    )
      best = { engine, ...v };
  }
  return best;
}

function ownership(
  decided: { engine: EngineName; certainty: Certainty; evidence: string[] },
  sources: readonly SourceClue[],
): EngineOwnership {
  // One shape for every ownership (optional fields present, undefined).
  let refs: SourcePolicyRef[] = [];
  let sourceCertainty: Certainty | undefined;
  if (sources.length === 1) {
    const s = sources[0]!;
    if (s.ref.engine === decided.engine) {
      refs = [s.ref];
      sourceCertainty = s.certainty;
    }
  } else if (sources.length > 1) {
    const seen = new Set<string>();
    for (const s of sources) {
      if (s.ref.engine !== decided.engine) continue;
      const k = sourceKey(s.ref);
      if (seen.has(k)) continue;
      seen.add(k);
      refs.push(s.ref);
      sourceCertainty = sourceCertainty ? weakest(sourceCertainty, s.certainty) : s.certainty;
    }
  }
  return {
    engine: decided.engine,
    certainty: decided.certainty,
    evidence: decided.evidence,
    source: refs.length === 1 ? refs[0] : undefined,
    sources: refs,
    sourceCertainty,
  };
}

// ---------------------------------------------------------------------------------------------
// Webhook configurations and their hooks.

interface HookLike {
  readonly name?: string;
  readonly clientConfig?: {
    readonly service?: { readonly namespace?: string; readonly path?: string };
    readonly url?: string;
  };
}

function configurationNameClues(kind: OwnedKind, name: string): Clue[] {
  if (KYVERNO_CONFIGURATIONS.has(name))
    return [
      {
        engine: "kyverno",
        certainty: "guess",
        evidence: `configuration named ${name}, as Kyverno names its own`,
      },
    ];
  if (GATEKEEPER_CONFIGURATIONS.has(name))
    return [
      {
        engine: "gatekeeper",
        certainty: "guess",
        evidence: `configuration named ${name}, as Gatekeeper names its own`,
      },
    ];
  if (KUBEWARDEN_CONFIGURATION.test(name) && kind.endsWith("WebhookConfiguration"))
    return [
      {
        engine: "kubewarden",
        certainty: "guess",
        evidence: `configuration named ${name}, as Kubewarden names a policy's`,
      },
    ];
  return [];
}

function hookNameClue(name: string): Clue | undefined {
  for (const [re, engine] of HOOK_NAME)
    if (re.test(name)) return { engine, certainty: "guess", evidence: `hook named ${name}` };
  return undefined;
}

/** The path a hook calls, `url`'s path when it has no service. */
function hookPath(h: HookLike): string | undefined {
  const p = str(field(h, "clientConfig", "service", "path"));
  if (p) return p;
  const url = str(field(h, "clientConfig", "url"));
  if (!url) return undefined;
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

/** Kubewarden: the policy a configuration's annotations (or name) name. */
function kubewardenSource(name: string, meta: Meta, r: Resolver): SourceClue | undefined {
  const policy = str(meta.annotations[KUBEWARDEN_NAME_ANNOTATION]);
  const group = name.startsWith("clusterwide-group-") || name.startsWith("namespaced-group-");
  if (policy) {
    const ns = str(meta.annotations[KUBEWARDEN_NAMESPACE_ANNOTATION]) ?? "";
    const kind = ns
      ? group
        ? "AdmissionPolicyGroup"
        : "AdmissionPolicy"
      : group
        ? "ClusterAdmissionPolicyGroup"
        : "ClusterAdmissionPolicy";
    const ref = r.ref(KUBEWARDEN_GROUP, kind, policy, ns || undefined);
    return ref ? { ref, certainty: "strong" } : undefined;
  }
  // Names alone (GetUniqueName): `clusterwide-[group-]<name>`; `namespaced-[group-]<ns>-<name>` is
  // ambiguous, so only a read policy can match it.
  let m = /^clusterwide-group-(.+)$/.exec(name);
  if (m) {
    const ref = r.ref(KUBEWARDEN_GROUP, "ClusterAdmissionPolicyGroup", m[1]!);
    return ref ? { ref, certainty: "guess" } : undefined;
  }
  m = /^clusterwide-(.+)$/.exec(name);
  if (m) {
    const ref = r.ref(KUBEWARDEN_GROUP, "ClusterAdmissionPolicy", m[1]!);
    return ref ? { ref, certainty: "guess" } : undefined;
  }
  m = /^namespaced-(group-)?(.+)$/.exec(name);
  if (m) {
    const kind = m[1] ? "AdmissionPolicyGroup" : "AdmissionPolicy";
    const rest = m[2]!;
    for (let i = rest.indexOf("-"); i > 0; i = rest.indexOf("-", i + 1)) {
      const ref = r.ref(KUBEWARDEN_GROUP, kind, rest.slice(i + 1), rest.slice(0, i));
      if (ref?.namespace && r.has(ref)) return { ref, certainty: "guess" };
    }
  }
  return undefined;
}

/** Kyverno: the policies a hook carries, from its path (and name for namespaced ones). */
function kyvernoHookSources(hook: HookLike, certainty: Certainty, r: Resolver): SourceClue[] {
  const name = str(hook.name) ?? "";
  const path = hookPath(hook);
  const strong = weakest(certainty, "strong");
  const guess: Certainty = "guess";
  if (path) {
    const fg = KYVERNO_FINEGRAINED_PATH.exec(path);
    if (fg) {
      const parts = fg[3]!.split("/");
      const ref =
        parts.length >= 2
          ? r.ref(KYVERNO_GROUP, "Policy", parts.slice(1).join("/"), parts[0])
          : r.ref(KYVERNO_GROUP, "ClusterPolicy", parts[0]!);
      return ref ? [{ ref, certainty: strong }] : [];
    }
    const segments = path.split("/").filter(Boolean);
    const kind = KYVERNO_CEL_PREFIX[segments[0] ?? ""];
    if (kind) {
      const names = segments.slice(segments[0]!.endsWith("ivpol") ? 2 : 1);
      const namespaced = kind.startsWith("Namespaced");
      const fgName = KYVERNO_CEL_FINEGRAINED.exec(name)?.[1];
      const out: SourceClue[] = [];
      for (const n of names) {
        let ns: string | undefined;
        if (namespaced && fgName && names.length === 1 && fgName.endsWith(`-${n}`))
          ns = fgName.slice(0, fgName.length - n.length - 1);
        const ref = r.ref(KYVERNO_POLICIES_GROUP, kind, n, ns);
        if (ref) out.push({ ref, certainty: strong });
      }
      return out;
    }
  }
  // No path (or not Kyverno's): the fine-grained name only, matched against read policies.
  const m = KYVERNO_FINEGRAINED_NAME.exec(name);
  if (m) {
    const key = m[3]!;
    const cluster = r.ref(KYVERNO_GROUP, "ClusterPolicy", key);
    if (cluster && r.has(cluster)) return [{ ref: cluster, certainty: guess }];
    for (let i = key.indexOf("-"); i > 0; i = key.indexOf("-", i + 1)) {
      const ref = r.ref(KYVERNO_GROUP, "Policy", key.slice(i + 1), key.slice(0, i));
      if (ref?.namespace && r.has(ref)) return [{ ref, certainty: guess }];
    }
    if (cluster) return [{ ref: cluster, certainty: guess }];
  }
  return [];
}

function recogniseConfiguration(
  kind: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration",
  config: unknown,
  r: Resolver,
  out: Record<string, OwnedObject>,
  namespaces: Map<EngineName, Set<string>>,
): void {
  const meta = metaOf(config);
  const hooks = list(field(config, "webhooks")).map((h) => (record(h) ?? {}) as HookLike);
  const owners = ownerClues(meta, r);
  const configClues = [
    ...owners.clues,
    ...metaClues(meta),
    ...configurationNameClues(kind, meta.name),
  ];
  const hookClues: Array<Clue | undefined> = [];
  for (const h of hooks) hookClues.push(hookNameClue(str(h.name) ?? ""));
  // The configuration: its own clues, and the first hook name of each engine among its hooks.
  const firstHookClue = new Map<EngineName, Clue>();
  for (const c of hookClues) if (c && !firstHookClue.has(c.engine)) firstHookClue.set(c.engine, c);
  const decided = decide([...configClues, ...firstHookClue.values()]);
  const configSources: SourceClue[] = [...owners.sources];
  if (decided?.engine === "kubewarden") {
    const s = kubewardenSource(meta.name, meta, r);
    if (s) configSources.push(s);
  }
  if (decided)
    out[ownedKey(kind, meta.name)] = {
      kind,
      name: meta.name,
      hook: undefined,
      position: undefined,
      ownership: ownership(decided, configSources),
    };
  // Each hook: the configuration's own clues, and its name.
  const byConfig = decide(configClues);
  for (let position = 0; position < hooks.length; position++) {
    const h = hooks[position]!;
    const nameClue = hookClues[position];
    const own = !nameClue
      ? byConfig
      : byConfig?.engine === nameClue.engine
        ? { ...byConfig, evidence: [...byConfig.evidence, nameClue.evidence] }
        : decide([...configClues, nameClue]);
    if (!own) continue;
    const sources: SourceClue[] = [...configSources];
    if (own.engine === "kyverno") sources.push(...kyvernoHookSources(h, own.certainty, r));
    out[ownedKey(kind, meta.name, position)] = {
      kind,
      name: meta.name,
      hook: str(h.name) ?? "",
      position,
      ownership: ownership(own, sources),
    };
    const ns = str(field(h, "clientConfig", "service", "namespace"));
    if (ns && own.certainty !== "guess") {
      const set = namespaces.get(own.engine) ?? new Set<string>();
      set.add(ns);
      namespaces.set(own.engine, set);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Admission policies and bindings.

function generatedPolicyNameSource(
  kind: "ValidatingAdmissionPolicy" | "MutatingAdmissionPolicy",
  name: string,
  r: Resolver,
): { clue: Clue; source?: SourceClue } | undefined {
  for (const [prefix, group, sourceKind] of KYVERNO_GENERATED) {
    if (!name.startsWith(prefix)) continue;
    if ((prefix === "mpol-") !== (kind === "MutatingAdmissionPolicy")) continue;
    const ref = r.ref(group, sourceKind, name.slice(prefix.length));
    return {
      clue: {
        engine: "kyverno",
        certainty: "guess",
        evidence: `named ${name}, as Kyverno names the policy it generates from ${sourceKind} ${name.slice(prefix.length)}`,
      },
      source: ref ? { ref, certainty: "guess" as const } : undefined,
    };
  }
  if (kind === "ValidatingAdmissionPolicy" && name.startsWith(GATEKEEPER_PREFIX)) {
    const template = name.slice(GATEKEEPER_PREFIX.length);
    const ref = r.ref(GATEKEEPER_TEMPLATES_GROUP, "ConstraintTemplate", template);
    return {
      clue: {
        engine: "gatekeeper",
        certainty: "guess",
        evidence: `named ${name}, as Gatekeeper names the policy it generates from ConstraintTemplate ${template}`,
      },
      source: ref ? { ref, certainty: "guess" as const } : undefined,
    };
  }
  return undefined;
}

function recognisePolicy(
  kind: "ValidatingAdmissionPolicy" | "MutatingAdmissionPolicy",
  policy: unknown,
  r: Resolver,
  out: Record<string, OwnedObject>,
): void {
  const meta = metaOf(policy);
  const owners = ownerClues(meta, r);
  const byName = generatedPolicyNameSource(kind, meta.name, r);
  const decided = decide([...owners.clues, ...metaClues(meta), ...(byName ? [byName.clue] : [])]);
  if (!decided) return;
  const sources = [...owners.sources];
  if (sources.length === 0 && byName?.source) sources.push(byName.source);
  out[ownedKey(kind, meta.name)] = {
    kind,
    name: meta.name,
    ownership: ownership(decided, sources),
  };
}

function recogniseBinding(
  kind: "ValidatingAdmissionPolicyBinding" | "MutatingAdmissionPolicyBinding",
  binding: unknown,
  policies: ReadonlyMap<string, unknown>,
  r: Resolver,
  out: Record<string, OwnedObject>,
): void {
  const meta = metaOf(binding);
  const owners = ownerClues(meta, r);
  const policyName = str(field(binding, "spec", "policyName")) ?? "";
  const clues: Clue[] = [...owners.clues, ...metaClues(meta)];
  const sources = [...owners.sources];
  // Kyverno: `<generated policy>-binding` binding that policy.
  if (meta.name === `${policyName}${KYVERNO_BINDING_SUFFIX}`) {
    const byName = generatedPolicyNameSource(
      kind === "ValidatingAdmissionPolicyBinding"
        ? "ValidatingAdmissionPolicy"
        : "MutatingAdmissionPolicy",
      policyName,
      r,
    );
    if (byName?.clue.engine === "kyverno") {
      clues.push({
        engine: "kyverno",
        certainty: "guess",
        evidence: `named ${meta.name}, as Kyverno names the binding of ${policyName}`,
      });
      if (sources.length === 0 && byName.source) sources.push(byName.source);
    }
  }
  // Gatekeeper: `gatekeeper-<kind>-<constraint>` binding `gatekeeper-<kind>` with paramRef.name
  // the constraint (make_vap_objects.go ConstraintToBinding; long names are truncated and hashed).
  if (
    kind === "ValidatingAdmissionPolicyBinding" &&
    policyName.startsWith(GATEKEEPER_PREFIX) &&
    meta.name.startsWith(GATEKEEPER_PREFIX)
  ) {
    const lower = policyName.slice(GATEKEEPER_PREFIX.length);
    const constraint = str(field(binding, "spec", "paramRef", "name"));
    if (
      constraint &&
      (meta.name === `${policyName}-${constraint}` || meta.name.startsWith(`${policyName}-`))
    ) {
      clues.push({
        engine: "gatekeeper",
        certainty: "guess",
        evidence: `named ${meta.name}, as Gatekeeper names the binding of Constraint ${constraint}`,
      });
      const paramKind = str(field(policies.get(policyName), "spec", "paramKind", "kind"));
      const constraintKind = paramKind ?? r.constraintKind(lower);
      if (sources.length === 0 && constraintKind) {
        const ref = r.ref(GATEKEEPER_CONSTRAINTS_GROUP, constraintKind, constraint);
        if (ref) sources.push({ ref, certainty: "guess" });
      }
    }
  }
  const decided = decide(clues);
  if (!decided) return;
  out[ownedKey(kind, meta.name)] = {
    kind,
    name: meta.name,
    ownership: ownership(decided, sources),
  };
}

/**
 * Recognises the engines' objects among a cluster's admission configuration. `sources` (the
 * engines' policies, when read) sharpen the answer: the served apiVersion of each source, the
 * namespace of a namespaced one named without it, a Constraint's kind.
 */
export function recogniseOwnership(
  input: OwnershipInput,
  sources: EngineSources = NO_ENGINE_SOURCES,
): EngineOwnershipIndex {
  const r = resolverFor(sources);
  const out: Record<string, OwnedObject> = {};
  const namespaces = new Map<EngineName, Set<string>>();
  for (const c of input.validatingWebhookConfigurations ?? [])
    recogniseConfiguration("ValidatingWebhookConfiguration", c, r, out, namespaces);
  for (const c of input.mutatingWebhookConfigurations ?? [])
    recogniseConfiguration("MutatingWebhookConfiguration", c, r, out, namespaces);
  const vaps = new Map<string, unknown>();
  for (const p of input.validatingAdmissionPolicies ?? []) {
    vaps.set(p.metadata?.name ?? "", p);
    recognisePolicy("ValidatingAdmissionPolicy", p, r, out);
  }
  const maps = new Map<string, unknown>();
  for (const p of input.mutatingAdmissionPolicies ?? []) {
    maps.set(p.metadata?.name ?? "", p);
    recognisePolicy("MutatingAdmissionPolicy", p, r, out);
  }
  for (const b of input.validatingAdmissionPolicyBindings ?? [])
    recogniseBinding("ValidatingAdmissionPolicyBinding", b, vaps, r, out);
  for (const b of input.mutatingAdmissionPolicyBindings ?? [])
    recogniseBinding("MutatingAdmissionPolicyBinding", b, maps, r, out);
  const engineNamespaces: Partial<Record<EngineName, readonly string[]>> = {};
  for (const [e, set] of namespaces) engineNamespaces[e] = [...set].sort();
  return { objects: out, engineNamespaces };
}
