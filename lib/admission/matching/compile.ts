/**
 * Compiles an AdmissionSnapshot once into the form match and predict work from: defaults
 * applied, selectors and rules and CEL parsed, hooks ordered, and a resource index so a
 * prediction only examines hooks whose rules can name the request's resource.
 */
import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type {
  V1MutatingWebhook,
  V1ValidatingWebhook,
  V1MatchResources,
  FailurePolicy,
  MatchPolicy,
} from "@/lib/k8s/types";
import { compileSelector, type CompiledSelector } from "@/lib/admission/model/selectors";
import { compileRule } from "@/lib/admission/model/rule-matcher";
import { byName } from "@/lib/admission/model/by-name";

export { byName };
import {
  compileMatchConditions,
  type CompiledCondition,
} from "@/lib/admission/matching/condition-evaluator";
import { buildEquivalenceIndex } from "@/lib/admission/matching/equivalence";
import { hookKey, type HookIdentity } from "@/lib/admission/model/hook-identity";
import {
  RULES_REASON,
  type CompiledInitializer,
  type CompiledMatchResources,
  type CompiledPolicyBinding,
  type CompiledSnapshot,
  type CompiledWebhook,
} from "@/lib/admission/matching/compiled";
import { manifestOriginOf, type AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { ManifestKind, ManifestOrigin } from "@/lib/admission/model/manifests";
import {
  buildHookIndex,
  buildRuleMatchCache,
  DRY_RUN_SAFE,
  SIMPLE,
  type WebhookTable,
} from "@/lib/admission/matching/hook-index";
import { webhookDefaults } from "@/lib/admission/model/webhook-defaults";
import { compileParamRef, paramKindKey, paramKindNotServed } from "@/lib/admission/model/params";

export type { CompiledMatchResources, CompiledSnapshot, CompiledWebhook };

function buildWebhookTable(hooks: readonly CompiledWebhook[]): WebhookTable {
  const namespaceSlot = new Int32Array(hooks.length);
  const objectSlot = new Int32Array(hooks.length);
  const flags = new Uint8Array(hooks.length);
  hooks.forEach((h, i) => {
    const m = h.match;
    namespaceSlot[i] = m.namespaceSelector.empty ? -1 : m.namespaceSelectorSlot;
    objectSlot[i] = m.objectSelector.empty ? -1 : m.objectSelectorSlot;
    const errors =
      m.namespaceSelector.error !== undefined ||
      m.objectSelector.error !== undefined ||
      m.namespaceSelector.nothing ||
      m.objectSelector.nothing;
    let f = 0;
    if (h.conditions.length === 0 && !errors) f |= SIMPLE;
    if (h.sideEffects === "None" || h.sideEffects === "NoneOnDryRun") f |= DRY_RUN_SAFE;
    flags[i] = f;
  });
  return { namespaceSlot, objectSlot, flags };
}

/** Assigns one slot per distinct selector and per distinct matchConditions list. */
class SlotInterner {
  readonly #selectors = new Map<string, number>();
  readonly #canonical: CompiledSelector[] = [];
  readonly #conditions = new Map<string, number>();

  get selectorSlots(): number {
    return this.#selectors.size;
  }

  get conditionSlots(): number {
    return this.#conditions.size;
  }

  /** Slot of a selector by content; `-1` for one that needs no evaluation. */
  selector(sel: CompiledSelector): number {
    if (sel.empty && !sel.nothing) return -1;
    return slotOf(this.#selectors, JSON.stringify(sel));
  }

  /** One shared object per distinct selector, so equal selectors share per-request results. */
  canonical(sel: CompiledSelector): CompiledSelector {
    const slot = this.selector(sel);
    if (slot < 0) return sel;
    return (this.#canonical[slot] ??= sel);
  }

  /** Slot of a condition list by names and expressions; `-1` for none. */
  conditions(cs: readonly CompiledCondition[]): number {
    if (cs.length === 0) return -1;
    return slotOf(this.#conditions, JSON.stringify(cs.map((c) => [c.name, c.expression])));
  }
}

function slotOf(m: Map<string, number>, key: string): number {
  let slot = m.get(key);
  if (slot === undefined) {
    slot = m.size;
    m.set(key, slot);
  }
  return slot;
}

function failurePolicyOf(v: string | undefined, dflt: FailurePolicy): FailurePolicy {
  return v === "Ignore" || v === "Fail" ? v : dflt;
}

function matchPolicyOf(v: string | undefined, dflt: MatchPolicy): MatchPolicy {
  return v === "Exact" || v === "Equivalent" ? v : dflt;
}

function apiVersionOf(obj: { apiVersion?: string }): "v1" | "v1beta1" {
  return obj.apiVersion?.endsWith("/v1beta1") ? "v1beta1" : "v1";
}

/**
 * The apiserver's order within one plugin: the static objects (loaded from its manifest
 * directory) by name, then the API objects by name (the composite sources put static first).
 */
function staticFirst<T extends { metadata?: { name?: string } }>(
  items: readonly T[],
  originOf: (name: string) => ManifestOrigin | undefined,
): T[] {
  const sorted = byName(items);
  const statics = sorted.filter((x) => originOf(x.metadata?.name ?? "") !== undefined);
  if (statics.length === 0) return sorted;
  return [...statics, ...sorted.filter((x) => originOf(x.metadata?.name ?? "") === undefined)];
}

function compileWebhooks(
  configs: ReadonlyArray<{
    apiVersion?: string;
    metadata?: { name?: string };
    webhooks?: ReadonlyArray<V1MutatingWebhook | V1ValidatingWebhook>;
  }>,
  type: "mutating" | "validating",
  slots: SlotInterner,
  originOf: (name: string) => ManifestOrigin | undefined,
  minor: KubernetesMinor,
): CompiledWebhook[] {
  const out: CompiledWebhook[] = [];
  for (const cfg of staticFirst(configs, originOf)) {
    const configuration = cfg.metadata?.name ?? "";
    const origin = originOf(configuration);
    const apiVersion = apiVersionOf(cfg);
    const seen = new Map<string, number>();
    (cfg.webhooks ?? []).forEach((w, position) => {
      const n = seen.get(w.name) ?? 0;
      seen.set(w.name, n + 1);
      const defaults = webhookDefaults(apiVersion);
      const reinvocation = "reinvocationPolicy" in w ? w.reinvocationPolicy : undefined;
      const id: HookIdentity = {
        source:
          type === "mutating" ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration",
        configuration,
        name: w.name,
        position,
        key: `${configuration}/${w.name}/${n}`,
        ...(origin ? { origin } : {}),
      };
      const stage = type === "mutating" ? "mutating-webhook" : "validating-webhook";
      const namespaceSelector = slots.canonical(compileSelector(w.namespaceSelector));
      const objectSelector = slots.canonical(compileSelector(w.objectSelector));
      const conditions = compileMatchConditions(w.matchConditions, minor);
      out.push({
        id,
        key: hookKey(id),
        rulesSkip: Object.freeze({ stage, hook: id, key: hookKey(id), reason: RULES_REASON }),
        type,
        apiVersion,
        order: out.length,
        match: {
          namespaceSelector,
          objectSelector,
          namespaceSelectorSlot: slots.selector(namespaceSelector),
          objectSelectorSlot: slots.selector(objectSelector),
          rules: (w.rules ?? []).map(compileRule),
          excludeRules: [],
          matchPolicy: matchPolicyOf(w.matchPolicy, defaults.matchPolicy),
        },
        failurePolicy: failurePolicyOf(w.failurePolicy, defaults.failurePolicy),
        sideEffects: w.sideEffects ?? defaults.sideEffects,
        timeoutSeconds: w.timeoutSeconds ?? defaults.timeoutSeconds,
        reinvocationPolicy: reinvocation === "IfNeeded" ? "IfNeeded" : "Never",
        conditions,
        conditionsSlot: slots.conditions(conditions),
      });
    });
  }
  return out;
}

/** Compiles policy matchConstraints or binding matchResources (defaults: `{}` selectors, Equivalent). */
function compileMatchResources(m: V1MatchResources, slots?: SlotInterner): CompiledMatchResources {
  const namespaceSelector = slots
    ? slots.canonical(compileSelector(m.namespaceSelector))
    : compileSelector(m.namespaceSelector);
  const objectSelector = slots
    ? slots.canonical(compileSelector(m.objectSelector))
    : compileSelector(m.objectSelector);
  return {
    namespaceSelector,
    objectSelector,
    namespaceSelectorSlot: slots ? slots.selector(namespaceSelector) : -1,
    objectSelectorSlot: slots ? slots.selector(objectSelector) : -1,
    rules: (m.resourceRules ?? []).map(compileRule),
    excludeRules: (m.excludeResourceRules ?? []).map(compileRule),
    matchPolicy: matchPolicyOf(m.matchPolicy, "Equivalent"),
  };
}

interface PolicyLike {
  metadata?: { name?: string };
  spec?: {
    matchConstraints?: V1MatchResources;
    failurePolicy?: string;
    matchConditions?: Array<{ name: string; expression: string }>;
    paramKind?: { apiVersion?: string; kind?: string } | null;
    reinvocationPolicy?: string;
    mutations?: Array<{ patchType?: string }>;
  };
}

interface BindingLike {
  metadata?: { name?: string };
  spec?: {
    policyName?: string;
    matchResources?: V1MatchResources;
    paramRef?: {
      name?: string;
      namespace?: string;
      parameterNotFoundAction?: string;
      selector?: unknown;
    };
    validationActions?: string[];
  };
}

/**
 * One policy plugin's (policy, binding) pairs: the static ones first (a static source's policies
 * with their static bindings), then the API ones. Each source binds within itself: an API binding
 * naming a static policy finds no policy, as the API source knows only API policies.
 */
function compilePolicyPlugin(
  policies: readonly PolicyLike[],
  bindings: readonly BindingLike[],
  type: "mutating" | "validating",
  slots: SlotInterner,
  unservedParamKinds: ReadonlySet<string>,
  snapshot: AdmissionSnapshot,
): CompiledPolicyBinding[] {
  const policyKind: ManifestKind =
    type === "mutating" ? "MutatingAdmissionPolicy" : "ValidatingAdmissionPolicy";
  const bindingKind: ManifestKind =
    type === "mutating" ? "MutatingAdmissionPolicyBinding" : "ValidatingAdmissionPolicyBinding";
  const policyOrigin = (p: PolicyLike) =>
    manifestOriginOf(snapshot, policyKind, p.metadata?.name ?? "");
  const bindingOrigin = (b: BindingLike) =>
    manifestOriginOf(snapshot, bindingKind, b.metadata?.name ?? "");
  const minor = snapshot.kubernetes?.minor ?? NEWEST_KUBERNETES_MINOR;
  const staticBindings = bindings.filter((b) => bindingOrigin(b) !== undefined);
  if (staticBindings.length === 0 && !policies.some((p) => policyOrigin(p) !== undefined))
    return compilePolicies(
      policies,
      bindings,
      type,
      slots,
      unservedParamKinds,
      () => undefined,
      minor,
    );
  return [
    ...compilePolicies(
      policies.filter((p) => policyOrigin(p) !== undefined),
      staticBindings,
      type,
      slots,
      unservedParamKinds,
      bindingOrigin,
      minor,
    ),
    ...compilePolicies(
      policies.filter((p) => policyOrigin(p) === undefined),
      bindings.filter((b) => bindingOrigin(b) === undefined),
      type,
      slots,
      unservedParamKinds,
      () => undefined,
      minor,
    ),
  ];
}

function compilePolicies(
  policies: readonly PolicyLike[],
  bindings: readonly BindingLike[],
  type: "mutating" | "validating",
  slots: SlotInterner,
  unservedParamKinds: ReadonlySet<string>,
  originOf: (b: BindingLike) => ManifestOrigin | undefined,
  minor: KubernetesMinor,
): CompiledPolicyBinding[] {
  const byPolicy = new Map<string, PolicyLike>();
  for (const p of policies) byPolicy.set(p.metadata?.name ?? "", p);
  const compiledConstraints = new Map<string, CompiledMatchResources | undefined>();
  const conditions = new Map<string, CompiledCondition[]>();
  const out: CompiledPolicyBinding[] = [];
  // The apiserver's order is a Go map walk (unspecified); name order keeps output stable.
  const sorted = [...bindings].sort((a, b) => {
    const pa = a.spec?.policyName ?? "";
    const pb = b.spec?.policyName ?? "";
    if (pa !== pb) return pa < pb ? -1 : 1;
    const na = a.metadata?.name ?? "";
    const nb = b.metadata?.name ?? "";
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
  for (const b of sorted) {
    const policyName = b.spec?.policyName ?? "";
    const bindingName = b.metadata?.name ?? "";
    const policy = byPolicy.get(policyName);
    if (!compiledConstraints.has(policyName)) {
      const mc = policy?.spec?.matchConstraints;
      compiledConstraints.set(policyName, mc ? compileMatchResources(mc, slots) : undefined);
      conditions.set(policyName, compileMatchConditions(policy?.spec?.matchConditions, minor));
    }
    const pr = b.spec?.paramRef;
    const paramKind = policy?.spec?.paramKind;
    const paramKindKeyOf = paramKind
      ? paramKindKey(paramKind.apiVersion ?? "", paramKind.kind ?? "")
      : undefined;
    const policyConditions = conditions.get(policyName) ?? [];
    const origin = originOf(b);
    const id: HookIdentity = {
      source: type === "mutating" ? "MutatingAdmissionPolicy" : "ValidatingAdmissionPolicy",
      configuration: policyName,
      name: bindingName,
      position: 0,
      key: `${policyName}/${bindingName}`,
      ...(origin ? { origin } : {}),
    };
    out.push({
      id,
      key: hookKey(id),
      type,
      policyName,
      bindingName,
      constraints: compiledConstraints.get(policyName),
      policyMissing: policy === undefined,
      bindingMatch: b.spec?.matchResources
        ? compileMatchResources(b.spec.matchResources, slots)
        : undefined,
      failurePolicy: failurePolicyOf(policy?.spec?.failurePolicy, "Fail"),
      conditions: policyConditions,
      conditionsSlot: slots.conditions(policyConditions),
      hasParamKind: paramKind !== undefined && paramKind !== null,
      paramKind: paramKindKeyOf,
      paramKindError:
        paramKind && paramKindKeyOf !== undefined && unservedParamKinds.has(paramKindKeyOf)
          ? paramKindNotServed(paramKind.apiVersion ?? "", paramKind.kind ?? "")
          : undefined,
      paramRef: pr ? compileParamRef(pr) : undefined,
      validationActions: b.spec?.validationActions ?? [],
      reinvocationPolicy: policy?.spec?.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
      appliesConfiguration:
        type === "mutating" &&
        (policy?.spec?.mutations ?? []).some((m) => m.patchType === "ApplyConfiguration"),
    });
  }
  return out;
}

/** How many hooks at the head of a plugin's list are static (they are all first). */
function countStatic(hooks: readonly { id: HookIdentity }[]): number {
  let n = 0;
  while (n < hooks.length && hooks[n]?.id.origin !== undefined) n++;
  return n;
}

/** Compiles a snapshot; do it once per snapshot change, then predict many requests. */
export function compileSnapshot(s: AdmissionSnapshot): CompiledSnapshot {
  const slots = new SlotInterner();
  const minor = s.kubernetes?.minor ?? NEWEST_KUBERNETES_MINOR;
  const mutating = compileWebhooks(
    s.mutatingWebhookConfigurations ?? [],
    "mutating",
    slots,
    (n) => manifestOriginOf(s, "MutatingWebhookConfiguration", n),
    minor,
  );
  const validating = compileWebhooks(
    s.validatingWebhookConfigurations ?? [],
    "validating",
    slots,
    (n) => manifestOriginOf(s, "ValidatingWebhookConfiguration", n),
    minor,
  );
  const unservedParamKinds = new Set(s.unservedParamKinds ?? []);
  const mutatingPolicies = compilePolicyPlugin(
    s.mutatingAdmissionPolicies ?? [],
    s.mutatingAdmissionPolicyBindings ?? [],
    "mutating",
    slots,
    unservedParamKinds,
    s,
  );
  const validatingPolicies = compilePolicyPlugin(
    s.validatingAdmissionPolicies ?? [],
    s.validatingAdmissionPolicyBindings ?? [],
    "validating",
    slots,
    unservedParamKinds,
    s,
  );
  const initializers: CompiledInitializer[] = [];
  for (const cfg of byName(s.initializerConfigurations ?? [])) {
    const configuration = cfg.metadata?.name ?? "";
    (cfg.initializers ?? []).forEach((init, position) => {
      const id: HookIdentity = {
        source: "InitializerConfiguration",
        configuration,
        name: init.name,
        position,
        key: `initializer:${configuration}/${init.name}/${position}`,
      };
      initializers.push({
        id,
        key: hookKey(id),
        order: initializers.length,
        rules: (init.rules ?? []).map((r, i) => compileRule({ ...r, operations: ["CREATE"] }, i)),
      });
    });
  }
  const mutatingIndex = buildHookIndex(mutating.map((h) => h.match.rules));
  const validatingIndex = buildHookIndex(validating.map((h) => h.match.rules));
  const equivalence = buildEquivalenceIndex(s.discovery ?? []);
  return {
    mutating,
    validating,
    mutatingPolicies,
    validatingPolicies,
    initializers,
    namespaces: new Map(Object.entries(s.namespaces ?? {})),
    namespacesKnown: s.namespaces !== undefined,
    terminatingNamespaces: new Set(s.terminatingNamespaces ?? []),
    podSecurity: s.podSecurity,
    params: s.params
      ? new Map(s.params.map((p) => [paramKindKey(p.apiVersion, p.kind), p]))
      : undefined,
    equivalence,
    excludeVirtualResources:
      s.excludeVirtualResources ?? behaviourOf(s.kubernetes?.minor).webhooksSkipVirtualResources,
    kubernetes: s.kubernetes ?? { minor: NEWEST_KUBERNETES_MINOR, source: "default" },
    mutatingIndex,
    mutatingRuleMatches: buildRuleMatchCache(
      mutating.map((h) => h.match.rules),
      mutatingIndex,
    ),
    validatingIndex,
    validatingRuleMatches: buildRuleMatchCache(
      validating.map((h) => h.match.rules),
      validatingIndex,
    ),
    mutatingStatic: countStatic(mutating),
    validatingStatic: countStatic(validating),
    mutatingTable: buildWebhookTable(mutating),
    validatingTable: buildWebhookTable(validating),
    selectorSlots: slots.selectorSlots,
    conditionSlots: slots.conditionSlots,
  };
}
