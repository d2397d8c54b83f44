/**
 * `portcullis predict`: the calls the apiserver makes for one request — mutating rounds included —
 * every skipped hook with its reason, and the worst-case latency admission adds.
 */
import type { CompiledSnapshot } from "@/lib/admission/compile";
import { compileSnapshot } from "@/lib/admission/compile";
import { describeSkipReason, serializeSkipReason } from "@/lib/admission/explain";
import type { HookIdentity } from "@/lib/admission/hook-identity";
import type { MatchContext } from "@/lib/admission/match-context";
import { createMatchContext } from "@/lib/admission/match-context";
import type { SkipReason } from "@/lib/admission/match";
import { explainRules } from "@/lib/admission/match";
import type { Stage } from "@/lib/admission/order";
import { predictCompiled } from "@/lib/admission/predict";
import type { AdmissionRequest, GroupVersionKind, RequestUserInfo } from "@/lib/admission/request";
import { makeRequest } from "@/lib/admission/request";
import type { RuleMismatch } from "@/lib/admission/rules";
import { ruleMatches } from "@/lib/admission/rules";
import type { Labels } from "@/lib/admission/selectors";
import type { AdmissionSnapshot, DiscoveryResource } from "@/lib/admission/snapshot";
import type { JsonObject } from "@/lib/admission/validate/json";
import { isObject, obj, str } from "@/lib/admission/validate/json";
import type { AdmissionOperation } from "@/lib/k8s/types";
import type { PredictCommand } from "../args";
import { InputError, UsageError } from "../errors";
import { readDocuments, typeOf } from "../documents";
import { readText } from "../input";
import type { ResolvedResource } from "../resources";
import { parseResourceName, resolveResource } from "../resources";
import type { Notice } from "../snapshot";
import { loadState } from "../state";

/** A hook as the JSON output names it. */
export interface HookRef {
  source: HookIdentity["source"];
  configuration: string;
  name: string;
  position: number;
}

/** Where the namespaceSelector's labels came from. */
export type NamespaceLabelOrigin =
  "flag" | "files" | "cluster" | "object" | "assumed" | "missing" | "cluster-scoped";

/** The request as predicted. */
export interface RequestReport {
  operation: AdmissionOperation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  kind: GroupVersionKind;
  namespace: string;
  name: string;
  dryRun: boolean;
  userInfo: { username: string; groups: string[] };
  namespaceLabels: Labels | null;
  namespaceLabelsFrom: NamespaceLabelOrigin;
}

/** One call, in the order the apiserver makes them. */
export interface CallReport {
  /** 0-based position in the whole sequence. */
  order: number;
  stage: Stage;
  /** 0 for the first pass; 1 for a possible reinvocation. */
  round: 0 | 1;
  certainty: "certain" | "possible";
  hook: HookRef;
  key: string;
  /** Webhooks: seconds; policies run in process (0). */
  timeoutSeconds: number;
  failurePolicy: "Fail" | "Ignore";
  /** Validating webhooks run concurrently. */
  parallel: boolean;
  reinvocationPolicy: "Never" | "IfNeeded" | null;
  /** Why round 1 may call it again: `later-mutator` (with the keys after it) or `round-one-change`. */
  reinvocation: { kind: string; after?: readonly string[] } | null;
  matchedRule: number;
  /** The resource and kind the hook sees (an equivalent's when matchPolicy converted it). */
  via: {
    group: string;
    version: string;
    resource: string;
    subresource: string;
    kind: GroupVersionKind;
  };
  converted: boolean;
  validationActions: readonly string[] | null;
  paramsNote: string | null;
}

/** A hook that is not called. */
export interface SkipReport {
  stage: Stage;
  hook: HookRef;
  key: string;
  /** Stable code: rules, namespace-selector, object-selector, match-condition-false, excluded, … */
  code: SkipReason["code"];
  /** The structured reason (selector requirements that failed, condition names, …). */
  reason: object;
  /** Per-rule mismatch when `code` is rules. */
  ruleMismatches: RuleMismatch[];
  message: string;
}

/** `portcullis predict --output json`. */
export interface PredictReport {
  schema: "portcullis.predict/v1";
  /** False when admission is predicted to reject the request (see `failure`). */
  admitted: boolean;
  request: RequestReport;
  calls: CallReport[];
  skips: SkipReport[];
  /** Hooks whose call depends on something that cannot be evaluated offline. */
  indeterminate: {
    stage: Stage;
    hook: HookRef;
    key: string;
    condition: string;
    reason: string;
    message: string;
    timeoutSeconds: number;
  }[];
  failure: { stage: Stage; hook: HookRef; key: string; status: number; message: string } | null;
  exclusions: { webhooks: string | null; policies: string | null };
  worstCaseLatencySeconds: number;
  notices: Notice[];
}

const ref = (h: HookIdentity): HookRef => ({
  source: h.source,
  configuration: h.configuration,
  name: h.name,
  position: h.position,
});

/** Reads the one object in a file. */
export function readObject(file: string, flag: string): JsonObject {
  const read = readDocuments([readText(file)]);
  const p = read.problems[0];
  if (p)
    throw new InputError(
      `${file}:${p.range.startLine}:${p.range.startCol}: malformed YAML: ${p.message}`,
    );
  const objects = read.objects.filter((o) => o.value !== null);
  const first = objects[0];
  if (!first || !isObject(first.value)) throw new InputError(`${flag} ${file} holds no object`);
  if (objects.length > 1)
    throw new InputError(`${flag} ${file} holds ${objects.length} objects; give it exactly one`);
  return first.value;
}

/** Everything buildRequest needs besides the command line. */
export interface RequestInputs {
  object: JsonObject;
  oldObject: JsonObject | undefined;
  discovery: readonly DiscoveryResource[];
  /** Known namespace labels and where they came from. */
  namespaces: Readonly<Record<string, Labels>>;
  namespacesFrom: "files" | "cluster" | undefined;
  /** The context's identity, when --user is not given. */
  identity: RequestUserInfo | undefined;
}

const DEFAULT_USER: RequestUserInfo = {
  username: "kubernetes-admin",
  groups: ["system:masters", "system:authenticated"],
};

/**
 * The admission request the command line describes (pure). DELETE: the object is the one
 * being deleted (oldObject, as the apiserver passes it); CONNECT: the object is the options body.
 */
export function buildRequest(
  cmd: Pick<
    PredictCommand,
    | "operation"
    | "subresource"
    | "resource"
    | "namespace"
    | "name"
    | "dryRun"
    | "namespaceLabels"
    | "user"
    | "groups"
  >,
  input: RequestInputs,
): {
  request: AdmissionRequest;
  report: RequestReport;
  resolved: ResolvedResource;
  notices: Notice[];
} {
  const notices: Notice[] = [];
  const at = "request";
  const t = typeOf(input.object);
  const meta = obj(input.object, "metadata");
  const objNs = str(meta, "namespace");
  const resolved = resolveResource(
    input.discovery,
    {
      apiVersion: t.apiVersion,
      kind: t.kind,
      namespaced: objNs !== "" || cmd.namespace !== undefined,
    },
    cmd.subresource,
    cmd.resource === undefined ? undefined : parseResourceName(cmd.resource),
  );
  const gvr = `${resolved.group || "core"}/${resolved.version}/${resolved.resource}`;
  if (resolved.guessed)
    notices.push({
      at,
      message: `resource ${gvr} is inferred from kind ${t.kind}; name it with --resource if that is wrong`,
    });
  if (cmd.namespace !== undefined && objNs !== "" && cmd.namespace !== objNs)
    throw new UsageError(
      `--namespace ${cmd.namespace} does not match the object's metadata.namespace ${objNs}`,
    );
  const isNamespace = resolved.group === "" && resolved.resource === "namespaces";
  const name = cmd.name ?? (str(meta, "name") || "");
  let namespace = "";
  if (isNamespace) namespace = name;
  else if (resolved.namespaced) namespace = cmd.namespace ?? (objNs || "default");
  else if (objNs !== "" || cmd.namespace !== undefined)
    notices.push({ at, message: `${gvr} is cluster-scoped: the namespace is ignored` });

  let object: JsonObject | null = input.object;
  let oldObject: JsonObject | null = null;
  if (cmd.operation === "DELETE") {
    object = null;
    oldObject = input.object;
  } else if (cmd.operation === "UPDATE") {
    oldObject = input.oldObject ?? input.object;
    if (!input.oldObject)
      notices.push({
        at,
        message: "no --old-object: the stored object is taken to equal the new one",
      });
  }

  const optionsKind: Record<AdmissionOperation, string | undefined> = {
    CREATE: "CreateOptions",
    UPDATE: "UpdateOptions",
    DELETE: "DeleteOptions",
    CONNECT: undefined,
  };
  const ok = optionsKind[cmd.operation];
  const options: JsonObject | null = ok
    ? { apiVersion: "meta.k8s.io/v1", kind: ok, ...(cmd.dryRun ? { dryRun: ["All"] } : {}) }
    : null;

  const userInfo: RequestUserInfo = cmd.user
    ? {
        username: cmd.user,
        groups: [...new Set([...cmd.groups, "system:authenticated"])],
      }
    : (input.identity ?? DEFAULT_USER);

  let labels: Labels | null = null;
  let from: NamespaceLabelOrigin = "cluster-scoped";
  let namespaceObject: { labels: Labels } | undefined;
  if (
    isNamespace &&
    cmd.subresource === "" &&
    (cmd.operation === "CREATE" || cmd.operation === "UPDATE")
  ) {
    from = "object";
    const own = obj(meta, "labels") ?? {};
    labels = Object.fromEntries(
      Object.entries(own).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
  } else if (namespace !== "") {
    const known = input.namespaces[namespace];
    if (cmd.namespaceLabels) {
      from = "flag";
      labels = { "kubernetes.io/metadata.name": namespace, ...cmd.namespaceLabels };
      namespaceObject = { labels };
    } else if (known) {
      from = input.namespacesFrom ?? "files";
      labels = known;
      namespaceObject = { labels };
    } else if (input.namespacesFrom === "cluster") {
      from = "missing";
      notices.push({ at, message: `namespace ${namespace} does not exist in the cluster` });
    } else {
      from = "assumed";
      labels = { "kubernetes.io/metadata.name": namespace };
      namespaceObject = { labels };
      notices.push({
        at,
        message: `no labels known for namespace ${namespace}: assuming only kubernetes.io/metadata.name=${namespace} (use --namespace-labels or --namespaces)`,
      });
    }
  }

  const request = makeRequest({
    group: resolved.group,
    version: resolved.version,
    resource: resolved.resource,
    subresource: cmd.subresource,
    kind: { group: splitGroup(t.apiVersion), version: splitVersion(t.apiVersion), kind: t.kind },
    operation: cmd.operation,
    namespace,
    name,
    object,
    oldObject,
    dryRun: cmd.dryRun,
    userInfo,
    options,
    ...(namespaceObject ? { namespaceObject } : {}),
  });
  const report: RequestReport = {
    operation: cmd.operation,
    group: request.group,
    version: request.version,
    resource: request.resource,
    subresource: request.subresource,
    kind: request.kind,
    namespace,
    name,
    dryRun: cmd.dryRun,
    userInfo: { username: userInfo.username, groups: [...userInfo.groups] },
    namespaceLabels: labels,
    namespaceLabelsFrom: from,
  };
  return { request, report, resolved, notices };
}

function splitGroup(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? "" : apiVersion.slice(0, i);
}

function splitVersion(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

/** Per-rule detail for a rules skip, as predict.ts explains it for the dashboard. */
function ruleDetail(
  key: string,
  reason: SkipReason,
  c: CompiledSnapshot,
  ctx: MatchContext,
): RuleMismatch[] {
  const code = reason.code === "binding" ? reason.inner.code : reason.code;
  if (code !== "rules") return [];
  const w = [...c.mutating, ...c.validating].find((h) => h.key === key);
  if (w) return explainRules(w.match.rules, w.match.matchPolicy, ctx);
  const p = [...c.mutatingPolicies, ...c.validatingPolicies].find((h) => h.key === key);
  const cons = p?.constraints;
  if (!p || !cons) return [];
  // The binding's rules when the policy's own rules matched.
  const own = cons.rules.length === 0 || cons.rules.some((r) => ruleMatches(r, ctx.attrs));
  const m = own && p.bindingMatch ? p.bindingMatch : cons;
  return explainRules(m.rules, m.matchPolicy, ctx);
}

/** Predicts and shapes the report (pure apart from the compile). */
export function predictReport(
  request: AdmissionRequest,
  requestReport: RequestReport,
  snapshot: AdmissionSnapshot,
  notices: Notice[],
): PredictReport {
  const compiled = compileSnapshot(snapshot);
  const p = predictCompiled(request, compiled);
  const ctx = createMatchContext(request, compiled);
  return {
    schema: "portcullis.predict/v1",
    admitted: p.failure === undefined,
    request: requestReport,
    calls: p.calls.map((c, order) => ({
      order,
      stage: c.stage,
      round: c.round,
      certainty: c.certainty,
      hook: ref(c.hook),
      key: c.key,
      timeoutSeconds: c.timeoutSeconds,
      failurePolicy: c.failurePolicy,
      parallel: c.parallel,
      reinvocationPolicy: c.reinvocationPolicy ?? null,
      reinvocation: c.reinvocation ? { ...c.reinvocation } : null,
      matchedRule: c.matchedRule,
      via: { ...c.via.resource, subresource: c.via.subresource, kind: c.via.kind },
      converted: c.via.converted,
      validationActions: c.validationActions ?? null,
      paramsNote: c.paramsNote ?? null,
    })),
    skips: p.skips.map((s) => {
      const ruleMismatches = ruleDetail(s.key, s.reason, compiled, ctx);
      return {
        stage: s.stage,
        hook: ref(s.hook),
        key: s.key,
        code: s.reason.code,
        reason: serializeSkipReason(s.reason),
        ruleMismatches,
        message: describeSkipReason(s.reason, request, ruleMismatches),
      };
    }),
    indeterminate: p.indeterminate.map((x) => ({
      stage: x.stage,
      hook: ref(x.hook),
      key: x.key,
      condition: x.condition,
      reason: x.reason,
      message: x.message,
      timeoutSeconds: x.timeoutSeconds,
    })),
    failure: p.failure
      ? {
          stage: p.failure.stage,
          hook: ref(p.failure.hook),
          key: p.failure.key,
          status: p.failure.status,
          message: p.failure.message,
        }
      : null,
    exclusions: {
      webhooks: p.exclusions.webhooks?.message ?? null,
      policies: p.exclusions.policies?.message ?? null,
    },
    worstCaseLatencySeconds: p.worstCaseLatencySeconds,
    notices,
  };
}

/** Runs the command. */
export async function runPredict(cmd: PredictCommand): Promise<PredictReport> {
  const object = readObject(cmd.object, "--object");
  const oldObject =
    cmd.oldObject === undefined ? undefined : readObject(cmd.oldObject, "--old-object");
  const state = await loadState({
    inputs: cmd.config,
    namespacesFile: cmd.namespaces,
    context: cmd.context,
    kubeconfig: cmd.kubeconfig,
  });
  const identity = cmd.user === undefined ? state.identity : undefined;
  const built = buildRequest(cmd, {
    object,
    oldObject,
    discovery: state.discovery,
    namespaces: state.namespaces,
    namespacesFrom: state.live ? "cluster" : state.namespacesKnown ? "files" : undefined,
    identity,
  });
  const snapshot: AdmissionSnapshot = {
    ...state.collected.lists,
    namespaces: state.namespaces,
    discovery: state.discovery,
    ...(state.params ? { params: state.params } : {}),
  };
  return predictReport(built.request, built.report, snapshot, [
    ...state.collected.notices,
    ...built.notices,
  ]);
}
