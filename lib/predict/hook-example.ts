/**
 * A request one hook is called for, to open the predict page on (a hook's "predict" link): drawn
 * from the hook's own rules and selectors, and kept only when the prediction of it, against the
 * same live state, calls the hook. Pure.
 *
 * The search: rule by rule, each operation the rule names (CREATE first) on each served resource
 * the rule matches (resources it names before wildcard ones, a ConfigMap first for a wildcard),
 * the object labelled to satisfy the objectSelector and named to satisfy resourceNames, in each
 * live namespace (`default` first). A namespace selector no live namespace satisfies is then tried
 * as a what-if: a namespace's labels changed to satisfy it. When nothing calls the hook, the first
 * request tried is returned, uncalled, and its prediction says why the hook is skipped.
 */
import { stringify } from "yaml";
import type { CompiledMatchResources, CompiledSnapshot } from "@/lib/admission/matching/compiled";
import { ruleMatches, type CompiledRule } from "@/lib/admission/model/rule-matcher";
import type { CompiledSelector, Labels } from "@/lib/admission/model/selectors";
import { selectorMatches } from "@/lib/admission/model/selectors";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { AdmissionOperation } from "@/lib/k8s/types";
import { IMMORTAL_NAMESPACES } from "@/lib/admission/matching/exclusions";
import { reachesAdmission } from "@/lib/admission/prediction/served-operations";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import type { JsonObject } from "@/lib/admission/validate/json";
import { pageRequest, type LiveInputs } from "./page-request";
import { DEFAULT_STATE, type PredictPageState } from "./page-state";
import { isTarget, type HookTarget } from "./links";

/** What the predict page opens with for a target. */
export type HookExample =
  | {
      found: true;
      state: PredictPageState;
      /** Whether the prediction of `state` calls the target. */
      called: boolean;
      /** What the request is, in a phrase: `CREATE configmaps in namespace default`. */
      summary: string;
      /** Set when the namespace's labels are a what-if (no live namespace satisfies the selector). */
      whatIfNamespace?: string;
      /** The selectors the what-if labels satisfy (a deleted Namespace's meet both). */
      whatIfSelectors?: "namespaceSelector" | "namespaceSelector and objectSelector";
    }
  | { found: false; reason: string };

/** Most predictions one search runs (each is a whole prediction against the live state). */
const MAX_TRIES = 160;
/** Most requests (operation and resource) drawn from the rules. */
const MAX_PLANS = 64;
/** Most namespaces tried for one resource and operation. */
const MAX_NAMESPACES = 40;
const OPERATION_ORDER: readonly AdmissionOperation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];
/** For a wildcard resource, the ones an example reads most naturally as, in this order. */
const FAMILIAR = ["configmaps", "pods", "services", "deployments", "secrets"];

interface Matchers {
  /** Each must match (a binding narrows its policy's constraints). */
  all: readonly CompiledMatchResources[];
}

function matchersOf(target: HookTarget, compiled: CompiledSnapshot): Matchers[] {
  switch (target.source) {
    case "MutatingWebhookConfiguration":
    case "ValidatingWebhookConfiguration": {
      const list =
        target.source === "MutatingWebhookConfiguration" ? compiled.mutating : compiled.validating;
      return list
        .filter(
          (w) =>
            w.id.source === target.source &&
            w.id.configuration === target.configuration &&
            w.id.name === target.name,
        )
        .map((w) => ({ all: [w.match] }));
    }
    case "MutatingAdmissionPolicy":
    case "ValidatingAdmissionPolicy": {
      const list =
        target.source === "MutatingAdmissionPolicy"
          ? compiled.mutatingPolicies
          : compiled.validatingPolicies;
      const out: Matchers[] = [];
      for (const b of list) {
        if (b.id.source !== target.source || b.policyName !== target.configuration) continue;
        if (target.name !== "" && b.bindingName !== target.name) continue;
        if (!b.constraints) continue;
        out.push({ all: b.bindingMatch ? [b.constraints, b.bindingMatch] : [b.constraints] });
      }
      return out;
    }
    default:
      return [];
  }
}

/**
 * Labels that satisfy every selector, or undefined when none can (a nil "nothing" selector, a
 * parse error, or requirements that contradict each other). Starts from `base`: keys an
 * exclusion names are removed, required ones set.
 */
export function labelsSatisfying(
  selectors: readonly CompiledSelector[],
  base: Labels = {},
): Record<string, string> | undefined {
  if (selectors.some((s) => s.nothing || s.error !== undefined)) return undefined;
  const out: Record<string, string> = { ...base };
  const reqs = selectors.flatMap((s) => s.requirements);
  for (const key of new Set(reqs.map((r) => r.key))) {
    const on = reqs.filter((r) => r.key === key);
    let allowed: string[] | undefined;
    for (const r of on)
      if (r.operator === "In")
        allowed = allowed ? allowed.filter((v) => r.values.includes(v)) : [...r.values];
    const excluded = new Set(on.flatMap((r) => (r.operator === "NotIn" ? r.values : [])));
    const mustExist = allowed !== undefined || on.some((r) => r.operator === "Exists");
    const mustNotExist = on.some((r) => r.operator === "DoesNotExist");
    if (mustExist && mustNotExist) return undefined;
    const current = out[key];
    const keeps =
      current !== undefined &&
      !mustNotExist &&
      !excluded.has(current) &&
      (allowed === undefined || allowed.includes(current));
    if (keeps) continue;
    delete out[key];
    if (!mustExist) continue;
    const pick = (allowed ?? ["example", ...[...excluded].map((v) => `${v}-example`)]).find(
      (v) => !excluded.has(v),
    );
    if (pick === undefined) return undefined;
    out[key] = pick;
  }
  return selectors.every((s) => selectorMatches(s, out)) ? out : undefined;
}

interface Candidate {
  operation: AdmissionOperation;
  resource: DiscoveryResource;
  subresource: string;
  /** The object's kind, when a subresource has one of its own. */
  kind: { group: string; version: string; kind: string };
  /** A name `resourceNames` allows (policies), else "example". */
  name: string;
}

function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

function rank(rule: CompiledRule, d: DiscoveryResource): number {
  if (rule.resources.some(([r]) => r === d.resource)) return 0;
  const f = FAMILIAR.indexOf(d.resource);
  return f < 0 ? FAMILIAR.length + 1 : 1 + f;
}

/** Operations and resources every rule of `m` allows, in the order an example is wanted. */
function candidatesOf(m: Matchers, discovery: readonly DiscoveryResource[]): Candidate[] {
  const [first, ...rest] = m.all;
  if (!first) return [];
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const rule of first.rules) {
    const ranked = [...discovery].sort((a, b) => rank(rule, a) - rank(rule, b));
    const ops = OPERATION_ORDER.filter((o) => rule.allOperations || rule.operations.includes(o));
    for (const operation of ops) {
      const matches = (d: DiscoveryResource, subresource: string) => {
        const attrs = {
          operation,
          group: d.group,
          version: d.version,
          resource: d.resource,
          subresource,
          namespace: d.namespaced ? "example" : "",
          name: "example",
        };
        return (
          ruleMatches(rule, attrs) &&
          rest.every((x) => x.rules.length === 0 || x.rules.some((r) => ruleMatches(r, attrs)))
        );
      };
      const named = rule.resourceNames[0] ?? "example";
      const found: Candidate[] = [];
      for (const d of ranked) {
        const kind = { group: d.group, version: d.version, kind: d.kind };
        // Only what the target serves reaches admission: CONNECT only the connect subresources
        // (exec, attach, portforward, proxy), DELETE never a status (served-operations.ts).
        if (reachesAdmission(operation, d, "") && matches(d, ""))
          found.push({ operation, resource: d, subresource: "", kind, name: named });
        for (const s of d.subresources ?? [])
          if (reachesAdmission(operation, d, s.name) && matches(d, s.name))
            found.push({
              operation,
              resource: d,
              subresource: s.name,
              kind: s.kind ?? kind,
              name: named,
            });
      }
      // The resource itself before its subresources, when the rule reaches both.
      found.sort((a, b) => Number(a.subresource !== "") - Number(b.subresource !== ""));
      for (const c of found) {
        const key = `${c.operation} ${c.resource.group}/${c.resource.version}/${c.resource.resource}/${c.subresource}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(c);
      }
    }
  }
  return out;
}

/** The page's state for a candidate, with the object it holds as text. */
function stateOf(
  c: Candidate,
  namespace: string | undefined,
  objectLabels: Record<string, string>,
  namespaceLabels: Record<string, string> | undefined,
): { state: PredictPageState; object: JsonObject } {
  // A Namespace's subresource, or its DELETE, is reached through the namespace itself, by name.
  const ownNamespace = isNamespaces(c.resource) && inNamespace(c);
  const metadata: JsonObject = {
    name: ownNamespace && namespace !== undefined ? namespace : c.name,
  };
  if (namespace !== undefined && c.resource.namespaced) metadata.namespace = namespace;
  if (Object.keys(objectLabels).length > 0) metadata.labels = objectLabels;
  const object: JsonObject = {
    apiVersion: apiVersionOf(c.kind.group, c.kind.version),
    kind: c.kind.kind,
    metadata,
  };
  const r = c.resource;
  const state: PredictPageState = {
    ...DEFAULT_STATE,
    object: stringify(object),
    operation: c.operation,
    subresource: c.subresource,
    resource: `${r.group === "" ? "core" : r.group}/${r.version}/${r.resource}`,
    namespaceLabels,
  };
  return { state, object };
}

function isNamespaces(d: DiscoveryResource): boolean {
  return d.group === "" && d.resource === "namespaces";
}

/**
 * A Namespace's DELETE: the apiserver matches the namespace as stored (the lister's labels for
 * the namespaceSelector, the object it deletes for the objectSelector), so the request names a
 * live namespace, labelled as it is.
 */
function deletesNamespace(c: Candidate): boolean {
  return isNamespaces(c.resource) && c.subresource === "" && c.operation === "DELETE";
}

/**
 * Whether the request names a live namespace (a namespaced resource, a Namespace's subresource,
 * a Namespace's DELETE).
 */
function inNamespace(c: Candidate): boolean {
  return (
    c.resource.namespaced ||
    (isNamespaces(c.resource) && c.subresource !== "") ||
    deletesNamespace(c)
  );
}

function summaryOf(c: Candidate, namespace: string | undefined): string {
  const what = c.subresource ? `${c.resource.resource}/${c.subresource}` : c.resource.resource;
  if (namespace === undefined) return `${c.operation} ${what}`;
  if (deletesNamespace(c)) return `${c.operation} namespace ${namespace}`;
  return c.resource.namespaced
    ? `${c.operation} ${what} in namespace ${namespace}`
    : `${c.operation} ${what} of namespace ${namespace}`;
}

/**
 * Whether the page's prediction of `state` calls the target: the same request the page builds
 * (from the object the state's text holds), predicted without the page's report.
 */
function calls(
  state: PredictPageState,
  object: JsonObject,
  live: LiveInputs,
  target: HookTarget,
): boolean {
  let request: ReturnType<typeof pageRequest>["request"];
  try {
    request = pageRequest(state, object, undefined, live).request;
  } catch {
    return false; // fields that make no request (the page says why)
  }
  // A failure at the hook (its namespace not found, a binding's params missing) rejects the
  // request before the hook is called.
  return predictCompiled(request, live.compiled).calls.some((c) => isTarget(c.hook, target));
}

/** Live namespaces in the order an example tries them: `default` first, then by name. */
function namespaceOrder(namespaces: Readonly<Record<string, Labels>>): string[] {
  const names = Object.keys(namespaces).sort();
  return names.includes("default") ? ["default", ...names.filter((n) => n !== "default")] : names;
}

/** A request the target is called for (see the module comment). */
export function exampleFor(target: HookTarget, live: LiveInputs): HookExample {
  const matchers = matchersOf(target, live.compiled);
  const what = `${target.source} ${target.configuration}${target.name ? ` / ${target.name}` : ""}`;
  if (matchers.length === 0)
    return {
      found: false,
      reason: `${what} is not in the cluster's admission state (deleted, renamed, or not readable as this context)`,
    };
  const spaces = namespaceOrder(live.namespaces);
  const plans = matchers
    .flatMap((m) => {
      const objectLabels = labelsSatisfying(m.all.map((x) => x.objectSelector)) ?? {};
      const nsSelectors = m.all.map((x) => x.namespaceSelector);
      // The live namespaces the selectors accept, read once per matcher, when first needed.
      let accepted: string[] | undefined;
      const inScope = () =>
        (accepted ??= spaces
          .filter((n) => nsSelectors.every((s) => selectorMatches(s, live.namespaces[n])))
          .slice(0, MAX_NAMESPACES));
      // A DELETE reaches no hook for a namespace the apiserver never deletes (default, …).
      const deletable = () => inScope().filter((n) => !IMMORTAL_NAMESPACES.has(n));
      const selectors = [...nsSelectors, ...m.all.map((x) => x.objectSelector)];
      return candidatesOf(m, live.discovery).map((c) => {
        // A Namespace is matched by its own labels against the namespaceSelector.
        const labels = isNamespaces(c.resource)
          ? (labelsSatisfying(nsSelectors, objectLabels) ?? objectLabels)
          : objectLabels;
        // A what-if for a namespace: the selectors it must satisfy (a deleted Namespace's labels
        // meet the objectSelector too).
        const whatIfSelectors = deletesNamespace(c) ? selectors : nsSelectors;
        return { c, labels, whatIfSelectors, inScope: deletesNamespace(c) ? deletable : inScope };
      });
    })
    .slice(0, MAX_PLANS);
  const first = plans[0];
  if (!first)
    return {
      found: false,
      reason: `no served resource matches the rules of ${what} for an operation it serves (by discovery's verbs: a status takes no DELETE, pods/exec only CONNECT)`,
    };
  let tries = 0;
  // The first request tried: the fallback, as close to being called as the search came.
  let fallback: HookExample | undefined;
  const attempt = (
    p: (typeof plans)[number],
    ns: string | undefined,
    nsLabels?: Record<string, string>,
  ): HookExample | undefined => {
    tries++;
    // A deleted Namespace carries the labels it has (or, in a what-if, is given).
    const objectLabels =
      deletesNamespace(p.c) && ns !== undefined
        ? (nsLabels ?? live.namespaces[ns] ?? {})
        : p.labels;
    const { state, object } = stateOf(p.c, ns, objectLabels, nsLabels);
    const summary = summaryOf(p.c, ns);
    const called = calls(state, object, live, target);
    const example: HookExample = nsLabels
      ? {
          found: true,
          state,
          called,
          summary,
          whatIfNamespace: ns,
          whatIfSelectors: deletesNamespace(p.c)
            ? "namespaceSelector and objectSelector"
            : "namespaceSelector",
        }
      : { found: true, state, called, summary };
    fallback ??= example;
    return called ? example : undefined;
  };
  // Real requests first: every resource in the first live namespace its selector accepts, then
  // in the others (a matchCondition may look at the namespace).
  for (const pass of [0, 1])
    for (const p of plans) {
      const where = inNamespace(p.c) ? p.inScope() : [undefined];
      for (const ns of pass === 0 ? where.slice(0, 1) : where.slice(1)) {
        if (tries >= MAX_TRIES) break;
        const hit = attempt(p, ns);
        if (hit) return hit;
      }
    }
  // Then a what-if: the first namespace's labels changed to satisfy the namespaceSelector (for a
  // Namespace's DELETE, the first one the apiserver would delete).
  const firstLive = spaces[0] ?? "default";
  const firstDeletable = spaces.find((n) => !IMMORTAL_NAMESPACES.has(n)) ?? "example";
  const whatIf = (c: Candidate) => (deletesNamespace(c) ? firstDeletable : firstLive);
  for (const p of plans) {
    if (!inNamespace(p.c)) continue;
    const ns = whatIf(p.c);
    const nsLabels = labelsSatisfying(p.whatIfSelectors, live.namespaces[ns] ?? {});
    if (!nsLabels || tries >= MAX_TRIES) continue;
    const hit = attempt(p, ns, nsLabels);
    if (hit) return hit;
  }
  // Nothing calls it: the prediction of the first request says why the hook is skipped.
  if (fallback) return fallback;
  const ns = inNamespace(first.c) ? whatIf(first.c) : undefined;
  return {
    found: true,
    state: stateOf(first.c, ns, first.labels, undefined).state,
    called: false,
    summary: summaryOf(first.c, ns),
  };
}
