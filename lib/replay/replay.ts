/**
 * Replay before apply: each request (the saved cases of a configuration and the last real
 * requests the decision feed holds for its hooks) predicted against the cluster's admission
 * state as it is and as the edit would leave it, and the requests whose outcome changes — a hook
 * or policy binding newly skipped, newly called or newly undecided, a request newly refused —
 * grouped by change, hook, operation, resource and namespace ("this edit stops calling
 * pods.example.com for 214 pod creations in team-a"), each with the predictor's reason.
 *
 * Both snapshots are compiled once; each request is predicted against both on the fast path
 * (predictCompiled) — or, when the edit only changes how its hooks match, against the state
 * before it, the edited hooks matched again for the state after — and only the requests whose outcome changes are predicted again with their
 * explainer, for the reasons. Pure: the server runs it next to the stored requests, a benchmark
 * and the tests run it as is.
 */
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import type {
  CompiledPolicyBinding,
  CompiledWebhook,
  HookMatch,
} from "@/lib/admission/matching/compiled";
import { matchPolicyBinding, matchWebhook } from "@/lib/admission/matching/match";
import { createMatchContext } from "@/lib/admission/matching/match-context";
import { predict, predictCompiled, type Prediction } from "@/lib/admission/prediction/predict";
import type { AdmissionRequest } from "@/lib/admission/model/request";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { LabelsOrigin } from "./case";
import {
  callsValidatingPolicy,
  policyIndex,
  policyVerdicts,
  type EvaluationCache,
  type FullParams,
  type PolicyIndex,
  type PolicyVerdict,
} from "./policy-verdicts";
import type {
  CaseHook,
  ChangeGroup,
  ChangedRequest,
  HookChange,
  ReplayResult,
} from "./replay-result";

export type { ReplayResult } from "./replay-result";

/** One request to replay. */
export interface ReplayItem {
  /** `case:<id>` for a saved case, `decision:<id>` for a request from the feed. */
  id: string;
  source: "case" | "feed";
  /** The case's name, or the request's description. */
  title: string;
  /** When the request was made (feed), or the case saved. */
  time: number;
  request: AdmissionRequest;
  labelsFrom: LabelsOrigin;
  objectKnown: boolean;
}

import type { EditableResource } from "./edit-snapshot";

type State = "called" | "undecided";

type HookId = { source: string; configuration: string; name: string };

/** A hook's state in an outcome; its label is made only for the hooks that change. */
interface Entry {
  readonly state: State;
  readonly id: HookId;
}

interface Outcome {
  readonly hooks: Map<string, Entry>;
  readonly denied: { key: string; hook: CaseHook; message: string; status: number } | undefined;
  /** The validating policy bindings certainly called, with their offline verdicts. */
  readonly policies: ReadonlyMap<string, { readonly id: HookId; readonly verdict: PolicyVerdict }>;
}

/** What evaluating a side's validating policies needs (policy-verdicts.ts). */
interface Evaluation {
  readonly index: PolicyIndex;
  readonly request: AdmissionRequest;
  readonly objectKnown: boolean;
  readonly cache: EvaluationCache;
}

const NO_POLICIES: Outcome["policies"] = new Map();

const caseHook = (h: HookId, key: string): CaseHook => ({
  key,
  label: `${h.source} ${h.configuration} / ${h.name}`,
});

/**
 * The round-0 calls, the undecided hooks and the refusal of a prediction, with its validating
 * policies evaluated (when `e` is given). The refusal is the first in the apiserver's order: an
 * in-tree plugin's, a mutating hook's failure, a validating policy's denial (or its failure),
 * a validating webhook's failure.
 */
function outcomeOf(p: Prediction, e: Evaluation | undefined): Outcome {
  const hooks = new Map<string, Entry>();
  for (const c of p.calls) if (c.round === 0) hooks.set(c.key, { state: "called", id: c.hook });
  for (const x of p.indeterminate)
    if (!hooks.has(x.key)) hooks.set(x.key, { state: "undecided", id: x.hook });
  const f = p.failure;
  const r = p.rejectedBeforeHooks;
  let policies = NO_POLICIES;
  let policyDenial: Outcome["denied"];
  if (e && callsValidatingPolicy(p)) {
    const m = new Map<string, { id: HookId; verdict: PolicyVerdict }>();
    for (const v of policyVerdicts(p, e.request, e.index, e.objectKnown, e.cache)) {
      m.set(v.key, { id: v.hook, verdict: v.verdict });
      if (v.verdict.result === "denied" && !policyDenial)
        policyDenial = {
          key: v.key,
          hook: caseHook(v.hook, v.key),
          message: v.verdict.message,
          status: 422,
        };
    }
    policies = m;
  }
  const failure = f
    ? { key: f.key, hook: caseHook(f.hook, f.key), message: f.message, status: f.status }
    : undefined;
  const denied = r
    ? {
        key: `in-tree:${r.plugin}`,
        hook: { key: `in-tree:${r.plugin}`, label: r.plugin },
        message: r.message,
        status: r.status,
      }
    : f && f.stage !== "validating-webhook"
      ? failure
      : (policyDenial ?? failure);
  return { hooks, denied, policies };
}

/** Whether two outcomes differ (the fast check, before any reason is worked out). */
function differs(a: Outcome, b: Outcome): boolean {
  if (a.hooks.size !== b.hooks.size) return true;
  for (const [k, v] of a.hooks) if (b.hooks.get(k)?.state !== v.state) return true;
  if ((a.denied === undefined) !== (b.denied === undefined)) return true;
  if (a.denied !== undefined && a.denied.key !== b.denied?.key) return true;
  if (a.policies.size !== b.policies.size) return true;
  for (const [k, v] of a.policies)
    if (b.policies.get(k)?.verdict.result !== v.verdict.result) return true;
  return false;
}

/**
 * The changes of the validating policies' verdicts that the request's refusal does not already
 * say: a binding newly (or no longer) warning, a binding's verdict newly undecided offline.
 */
function policyChanges(b: Outcome, a: Outcome): HookChange[] {
  const out: HookChange[] = [];
  for (const [key, now] of a.policies) {
    const was = b.policies.get(key)?.verdict;
    const v = now.verdict;
    if (v.result === "warned" && was?.result !== "warned")
      out.push({ kind: "newly-warned", hook: caseHook(now.id, key), reason: v.message });
    else if (v.result === "undecided" && was !== undefined && was.result !== "undecided")
      out.push({
        kind: "newly-undecided",
        hook: caseHook(now.id, key),
        reason: `its validations cannot be evaluated offline: ${v.message}`,
      });
  }
  for (const [key, was] of b.policies) {
    const w = was.verdict;
    if (w.result === "warned" && a.policies.get(key)?.verdict.result !== "warned")
      out.push({
        kind: "no-longer-warned",
        hook: caseHook(was.id, key),
        reason: `before the edit: ${w.message}`,
      });
  }
  return out;
}

/** The predictor's sentence for a hook of `p` that is not called (skip, or absent). */
function skipReason(explained: ReturnType<typeof predict>, key: string, missing: string): string {
  const s = explained.prediction.skips.find((x) => x.key === key);
  if (s) return explained.explainer.skip(s).message;
  const x = explained.prediction.indeterminate.find((i) => i.key === key);
  if (x) return x.message;
  return missing;
}

function callReason(p: Prediction, key: string): string {
  const c = p.calls.find((x) => x.key === key && x.round === 0);
  if (!c) return "";
  const via = c.via.converted
    ? ` (converted to ${c.via.resource.group || "core"}/${c.via.resource.version} ${c.via.resource.resource})`
    : "";
  return c.stage.endsWith("policy")
    ? `the binding matches the request${via}`
    : `rule ${c.matchedRule} and its selectors match the request${via}`;
}

/** What a change's reason says when it is not worked out (beyond the requests listed). */
const UNEXPLAINED = {
  skips: [],
  indeterminate: [],
  calls: [],
  alsoFailing: [],
} as unknown as Prediction;
const NO_EXPLAINER = {
  prediction: UNEXPLAINED,
  explainer: { skip: () => ({ message: "", ruleMismatches: [] }) },
};

/**
 * The changes of one request between its predictions before (`b`) and after (`a`) the edit;
 * with `explain`, each with the predictor's reason (explained predictions on both versions).
 */
function changesOf(
  request: AdmissionRequest,
  before: CompiledSnapshot,
  after: CompiledSnapshot,
  fast: { b: Outcome; a: Outcome },
  explain: boolean,
  evaluation: { b: Evaluation; a: Evaluation },
  explainedBefore?: ReturnType<typeof predict>,
): HookChange[] {
  const eb = explain ? (explainedBefore ?? predict(request, before)) : NO_EXPLAINER;
  const ea = explain ? predict(request, after) : NO_EXPLAINER;
  const b = explain ? outcomeOf(eb.prediction, evaluation.b) : fast.b;
  const a = explain ? outcomeOf(ea.prediction, evaluation.a) : fast.a;
  const out: HookChange[] = [];
  for (const [key, was] of b.hooks) {
    const now = a.hooks.get(key);
    if (now?.state === was.state) continue;
    if (now === undefined)
      out.push({
        kind: was.state === "called" ? "newly-skipped" : "no-longer-undecided",
        hook: caseHook(was.id, key),
        reason: skipReason(ea, key, "the edit removes it"),
      });
    else
      out.push({
        kind: now.state === "undecided" ? "newly-undecided" : "no-longer-undecided",
        hook: caseHook(now.id, key),
        reason:
          now.state === "undecided" ? skipReason(ea, key, "") : callReason(ea.prediction, key),
      });
  }
  for (const [key, now] of a.hooks) {
    if (b.hooks.has(key)) continue;
    out.push({
      kind: now.state === "called" ? "newly-called" : "newly-undecided",
      hook: caseHook(now.id, key),
      reason:
        now.state === "called"
          ? `${callReason(ea.prediction, key)}; before the edit: ${skipReason(eb, key, "it did not exist")}`
          : skipReason(ea, key, ""),
    });
  }
  if (a.denied && a.denied.key !== b.denied?.key)
    out.push({
      kind: "newly-denied",
      hook: a.denied.hook,
      reason: `${a.denied.status}: ${a.denied.message}`,
    });
  if (b.denied && b.denied.key !== a.denied?.key)
    out.push({
      kind: "no-longer-denied",
      hook: b.denied.hook,
      reason: `before the edit: ${b.denied.status}: ${b.denied.message}`,
    });
  out.push(...policyChanges(b, a));
  return out;
}

/** The object being edited, as stored (undefined: a new one) and as edited. */
interface EditFocus {
  resource: EditableResource;
  name: string;
  stored: Record<string, unknown> | undefined;
  edited: Record<string, unknown>;
}

type Obj = Record<string, unknown> | undefined;
const specOf = (o: Obj): Record<string, unknown> =>
  o && typeof o.spec === "object" && o.spec !== null ? (o.spec as Record<string, unknown>) : {};
const pick = (o: Obj, keys: readonly string[]) =>
  JSON.stringify(keys.map((k) => specOf(o)[k] ?? null));

/**
 * What a policy's or binding's edit may change besides matching: its params and what it does
 * with a failure. When any of these differs the screen is not used (every request is predicted).
 */
const NON_MATCH_FIELDS: Partial<Record<EditableResource, readonly string[]>> = {
  validatingadmissionpolicies: ["paramKind", "failurePolicy"],
  mutatingadmissionpolicies: ["paramKind", "failurePolicy", "reinvocationPolicy"],
  validatingadmissionpolicybindings: ["policyName", "paramRef"],
  mutatingadmissionpolicybindings: ["policyName", "paramRef"],
};

/**
 * What a validating policy's or binding's edit changes in how a request it is called for is
 * judged, not in whether it is called: its validations, variables, audit annotations, and the
 * binding's validationActions. When any of these differs the screen still passes over the
 * requests the edited bindings skip before and after the edit, but no request they are called
 * for is "alike": its policies are evaluated on both versions.
 */
const EVALUATION_FIELDS: Partial<Record<EditableResource, readonly string[]>> = {
  validatingadmissionpolicies: ["validations", "variables", "auditAnnotations"],
  validatingadmissionpolicybindings: ["validationActions"],
};

function editedHooks(
  s: CompiledSnapshot,
  f: EditFocus,
): { webhooks: readonly CompiledWebhook[]; policies: readonly CompiledPolicyBinding[] } {
  switch (f.resource) {
    case "mutatingwebhookconfigurations":
      return { webhooks: s.mutating.filter((h) => h.id.configuration === f.name), policies: [] };
    case "validatingwebhookconfigurations":
      return { webhooks: s.validating.filter((h) => h.id.configuration === f.name), policies: [] };
    case "validatingadmissionpolicies":
      return {
        webhooks: [],
        policies: s.validatingPolicies.filter((h) => h.policyName === f.name),
      };
    case "mutatingadmissionpolicies":
      return { webhooks: [], policies: s.mutatingPolicies.filter((h) => h.policyName === f.name) };
    case "validatingadmissionpolicybindings":
      return {
        webhooks: [],
        policies: s.validatingPolicies.filter((h) => h.bindingName === f.name),
      };
    case "mutatingadmissionpolicybindings":
      return { webhooks: [], policies: s.mutatingPolicies.filter((h) => h.bindingName === f.name) };
  }
}

/** How one hook matches, as far as the calls predicted depend on it. */
function matchKey(m: HookMatch): string {
  switch (m.kind) {
    case "call":
      return m.failure ? `call!${m.failure.status}${m.failure.message}` : "call";
    case "skip":
      return "skip";
    case "indeterminate":
      return "undecided";
    case "fail":
      return `fail${m.phase ?? ""}!${m.failure.status}${m.failure.message}`;
  }
}

/** How the edited hooks matched one request, before and after the edit (in the same order). */
interface EditedMatches {
  readonly hooks: readonly (CompiledWebhook | CompiledPolicyBinding)[];
  readonly before: readonly HookMatch[];
  readonly after: readonly HookMatch[];
}

/**
 * A screen for the requests an edit cannot change: the hooks of the edited object (the same
 * keys before and after), each matched against the request in both compiled snapshots. When
 * every one matches alike, the two predictions are alike (everything else in the snapshots is
 * the same), and the request is not predicted at all (`"alike"`); otherwise the matches, from
 * which the prediction after the edit is derived from the one before (`derivedOutcome`).
 * Undefined when the edit changes something matching does not show (a hook added or removed, a
 * policy's params or failure handling).
 */
function screenFor(
  f: EditFocus,
  before: CompiledSnapshot,
  after: CompiledSnapshot,
): ((r: AdmissionRequest) => EditedMatches | "alike") | undefined {
  const fields = NON_MATCH_FIELDS[f.resource];
  if (!f.stored || (fields && pick(f.stored, fields) !== pick(f.edited, fields))) return undefined;
  const judged = EVALUATION_FIELDS[f.resource];
  const evaluationChanged =
    judged !== undefined && pick(f.stored, judged) !== pick(f.edited, judged);
  const b = editedHooks(before, f);
  const a = editedHooks(after, f);
  const keys = (x: typeof b) => [...x.webhooks, ...x.policies].map((h) => h.key).join("\n");
  if (keys(b) !== keys(a)) return undefined;
  const hooks = [...a.webhooks, ...a.policies];
  return (r) => {
    const cb = createMatchContext(r, before);
    const ca = createMatchContext(r, after);
    const mb: HookMatch[] = [];
    const ma: HookMatch[] = [];
    let alike = true;
    for (let i = 0; i < b.webhooks.length; i++) {
      const x = matchWebhook(b.webhooks[i] as CompiledWebhook, cb);
      const y = matchWebhook(a.webhooks[i] as CompiledWebhook, ca);
      mb.push(x);
      ma.push(y);
      if (matchKey(x) !== matchKey(y)) alike = false;
    }
    for (let i = 0; i < b.policies.length; i++) {
      const x = matchPolicyBinding(b.policies[i] as CompiledPolicyBinding, cb);
      const y = matchPolicyBinding(a.policies[i] as CompiledPolicyBinding, ca);
      mb.push(x);
      ma.push(y);
      if (matchKey(x) !== matchKey(y)) alike = false;
      else if (evaluationChanged && (x.kind !== "skip" || y.kind !== "skip")) alike = false;
    }
    return alike ? "alike" : { hooks, before: mb, after: ma };
  };
}

/** The state a match leaves a hook in among the round-0 calls (undefined: not called). */
function stateOf(m: HookMatch): State | undefined | "fails" {
  switch (m.kind) {
    case "call":
      return m.failure ? "fails" : "called";
    case "indeterminate":
      return "undecided";
    case "skip":
      return undefined;
    case "fail":
      return "fails";
  }
}

/**
 * The outcome after the edit, from the prediction before it and how the edited hooks match
 * after it: only their states change, when nothing else in the chain depends on them — no
 * failure or refusal anywhere (a failure ends the chain, or the validating stage), no exclusion,
 * no PodSecurity refusal in question (it depends on which mutating hooks may be called), and
 * the prediction before agreeing with the edited hooks' matches before. Undefined otherwise: the
 * request is then predicted against the edit in full.
 */
function derivedOutcome(
  p: Prediction,
  b: Outcome,
  m: EditedMatches,
  e: Evaluation,
): Outcome | undefined {
  if (p.failure || p.rejectedBeforeHooks || p.alsoFailing.length > 0) return undefined;
  // Validating policies called: an edited binding is judged again, and an edited mutating hook
  // may change whether the object they see is known.
  const policiesCalled = callsValidatingPolicy(p);
  if (p.exclusions.webhooks || p.exclusions.policies) return undefined;
  if (p.podSecurity?.rejection !== undefined) return undefined;
  const undecided: [string, Entry][] = [];
  // The hooks not edited keep their states; a new key comes last, as in changesOf's reading.
  const hooks = new Map(b.hooks);
  for (let i = 0; i < m.hooks.length; i++) {
    const h = m.hooks[i] as CompiledWebhook | CompiledPolicyBinding;
    const was = stateOf(m.before[i] as HookMatch);
    const now = stateOf(m.after[i] as HookMatch);
    if (was === "fails" || now === "fails") return undefined;
    if (b.hooks.get(h.key)?.state !== was) return undefined;
    if (policiesCalled && now !== was) return undefined;
    hooks.delete(h.key);
    if (now === "called") hooks.set(h.key, { state: now, id: h.id });
    else if (now === "undecided") undecided.push([h.key, { state: now, id: h.id }]);
  }
  // Validating policies called, every hook in the same state: the calls are the same, and the
  // policies are judged again as the edit leaves them (an edited validation, validationActions).
  if (policiesCalled) return outcomeOf(p, e);
  // In a prediction's order: the calls, then the undecided hooks.
  for (const [k, v] of undecided) hooks.set(k, v);
  return { hooks, denied: b.denied, policies: b.policies };
}

/** Most changed requests returned one by one (all are counted and grouped). */
const DEFAULT_CHANGED_LIMIT = 500;

/**
 * Replays `items` against `current` and `edited`: every request predicted against both, and the
 * ones whose outcome changes, with reasons and grouped.
 */
export function replay(
  current: AdmissionSnapshot,
  edited: AdmissionSnapshot,
  items: readonly ReplayItem[],
  opts: {
    limit?: number;
    focus?: EditFocus;
    /** The param objects in full, for the policies whose bindings take params. */
    params?: FullParams;
  } = {},
): ReplayResult {
  const limit = opts.limit ?? DEFAULT_CHANGED_LIMIT;
  const t0 = performance.now();
  const before = compileSnapshot(current);
  const after = compileSnapshot(edited);
  const indexBefore = policyIndex(current, opts.params);
  const indexAfter = policyIndex(edited, opts.params);
  const screen = opts.focus ? screenFor(opts.focus, before, after) : undefined;
  const changed: ChangedRequest[] = [];
  const groups = new Map<string, ChangeGroup>();
  let changedCount = 0;
  let cases = 0;
  let currentLabels = 0;
  let withoutObject = 0;
  for (const item of items) {
    if (item.source === "case") cases++;
    if (item.labelsFrom === "current") currentLabels++;
    if (!item.objectKnown) withoutObject++;
    // The edited hooks matched alike before and after: the whole prediction is alike.
    const matches = screen?.(item.request);
    if (matches === "alike") continue;
    // One prediction (before the edit) and the edited hooks judged again, when that is enough.
    // While reasons are still given, the prediction before comes with its explainer (the same
    // work), so a changed request is not predicted before the edit twice.
    const explain = changed.length < limit;
    const eb = explain ? predict(item.request, before) : undefined;
    const pb = eb ? eb.prediction : predictCompiled(item.request, before);
    const cache: EvaluationCache = new Map();
    const { request, objectKnown } = item;
    const evaluation = {
      b: { index: indexBefore, request, objectKnown, cache },
      a: { index: indexAfter, request, objectKnown, cache },
    };
    const b = outcomeOf(pb, evaluation.b);
    const a =
      (matches && derivedOutcome(pb, b, matches, evaluation.a)) ??
      outcomeOf(predictCompiled(item.request, after), evaluation.a);
    if (!differs(b, a)) continue;
    const changes = changesOf(item.request, before, after, { b, a }, explain, evaluation, eb);
    if (changes.length === 0) continue;
    changedCount++;
    const r = item.request;
    const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
    const namespace = r.namespace ?? "";
    if (changed.length < limit)
      changed.push({
        id: item.id,
        source: item.source,
        title: item.title,
        time: item.time,
        operation: r.operation,
        resource,
        namespace,
        name: r.name ?? "",
        labelsFrom: item.labelsFrom,
        objectKnown: item.objectKnown,
        changes,
      });
    for (const c of changes) {
      const k = JSON.stringify([c.kind, c.hook.key, r.operation, resource, namespace]);
      const g = groups.get(k);
      if (g) {
        g.count++;
        g.first = Math.min(g.first, item.time);
        g.last = Math.max(g.last, item.time);
      } else
        groups.set(k, {
          kind: c.kind,
          hook: c.hook,
          operation: r.operation,
          resource,
          namespace,
          count: 1,
          first: item.time,
          last: item.time,
        });
    }
  }
  return {
    replayed: { cases, feed: items.length - cases },
    changedCount,
    changed,
    groups: [...groups.values()].sort(
      (x, y) => y.count - x.count || x.hook.label.localeCompare(y.hook.label),
    ),
    currentLabels,
    withoutObject,
    millis: performance.now() - t0,
  };
}
