/**
 * One admission request described by its parts (object, operation, namespace, user…) turned into
 * an AdmissionRequest, and a prediction turned into the report the command line prints as
 * `portcullis.predict/v1` and the predict page shows: one serialiser for both.
 */
import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type AssumedMinor,
  type KubernetesMinor,
  type KubernetesMinorSource,
} from "@/lib/admission/model/kubernetes-minor";
import type { CompiledSnapshot } from "@/lib/admission/matching/compile";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import type { ManifestOrigin } from "@/lib/admission/model/manifests";
import type { SkipReason } from "@/lib/admission/matching/match";
import type { Stage } from "@/lib/admission/prediction/order";
import {
  predict,
  type Explained,
  type PodSecurityPrediction,
  type PredictedFailure,
} from "@/lib/admission/prediction/predict";
import { levelVersionString } from "@/lib/admission/pod-security/labels";
import { serializeSkipReason } from "@/lib/admission/matching/explain";
import {
  compileLegacy,
  predictLegacy,
  type LegacySectionReport,
} from "@/lib/admission/historical/legacy-hooks";
import type {
  AdmissionRequest,
  GroupVersionKind,
  RequestUserInfo,
} from "@/lib/admission/model/request";
import { makeRequest } from "@/lib/admission/model/request";
import type { RuleMismatch } from "@/lib/admission/model/rule-matcher";
import type { Labels } from "@/lib/admission/model/selectors";
import type { AdmissionSnapshot, DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { JsonObject } from "@/lib/admission/validate/json";
import { obj, str } from "@/lib/admission/validate/json";
import type { AdmissionOperation } from "@/lib/k8s/types";
import { ownershipOf, type EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import type { Certainty, EngineName, SourcePolicyRef } from "@/lib/admission/engines/types";
import {
  parseResourceName,
  RequestSpecError,
  resolveResource,
  type ResolvedResource,
} from "@/lib/admission/report/resources";

/** Something worth telling the user that does not change the outcome. */
export interface ReportNotice {
  /** `file:line`, `request`, or `cluster <context>`. */
  at: string;
  message: string;
}

/** The request's parts besides its object (the command line's flags, the page's fields). */
export interface RequestSpec {
  operation: AdmissionOperation;
  /** "" for none. */
  subresource: string;
  /** `RESOURCE[.GROUP]` or `GROUP/VERSION/RESOURCE`, when the kind does not say it. */
  resource: string | undefined;
  /** The request's namespace when the object does not name one. */
  namespace: string | undefined;
  /** The object's name when the body does not carry it (connect options). */
  name: string | undefined;
  dryRun: boolean;
  /** Labels of the request's namespace (what-if); overrides the known ones. */
  namespaceLabels: Record<string, string> | undefined;
  /** Acting user; undefined: the identity given (or a default admin). */
  user: string | undefined;
  groups: string[];
}

/** A hook as the JSON output names it. */
export interface HookRef {
  source: HookIdentity["source"];
  configuration: string;
  name: string;
  position: number;
  /** Set for a hook loaded from a manifest directory (static): its plugin and file. */
  origin?: ManifestOrigin;
}

/**
 * The policy engine behind a hook or policy, when its ownership is known (present only then): the
 * engine, how sure, and the engine policy it carries.
 */
interface EngineOwnerReport {
  engine: EngineName;
  certainty: Certainty;
  /** The engine policy (a Constraint, a ClusterPolicy, a Kubewarden policy…), when one is known. */
  sourcePolicy?: SourcePolicyRef;
  /** Every engine policy it carries, when it carries several (a shared Kyverno hook). */
  sourcePolicies?: SourcePolicyRef[];
}

/** Where the namespaceSelector's labels came from. */
type NamespaceLabelOrigin =
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
  /** The param objects evaluated with, one evaluation each, when known. */
  params: readonly string[] | null;
  /** A validating policy's failed matchConditions: its decision (see PredictedCall). */
  conditionError: string | null;
  /** The policy engine behind the hook or policy: only when its ownership is known. */
  owner?: EngineOwnerReport;
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
/** A predicted rejection. */
interface FailureReport {
  stage: Stage;
  hook: HookRef;
  key: string;
  status: number;
  message: string;
  /** The policy engine behind the failing hook or policy: only when its ownership is known. */
  owner?: EngineOwnerReport;
}

export interface PodSecurityReport {
  subject: "pod" | "pod-template" | "namespace";
  /** The standard each mode applies: `restricted:latest`, `baseline:v1.30`, `privileged:latest`. */
  enforce: string;
  audit: string;
  warn: string;
  labelErrors: string[];
  rejection: { status: number; message: string } | null;
  rejects: boolean;
  warnings: string[];
  auditAnnotations: Record<string, string>;
  undecided: string | null;
  /** Why the plugin lets the request through unevaluated: an exempt namespace, user or RuntimeClass. */
  exemption: { by: "namespace" | "user" | "runtimeClass"; name: string; message: string } | null;
  /**
   * Set when the plugin's configuration (the apiserver's AdmissionConfiguration) was not given:
   * the verdict assumes its built-in defaults and no exemption.
   */
  assumption: string | null;
}

export interface PredictReport {
  schema: "portcullis.predict/v1";
  /**
   * The Kubernetes minor whose apiserver the prediction reproduces, and where that came from:
   * the cluster's /version, a choice (--kubernetes-version, the page's picker), or the newest
   * assumed (offline without a choice).
   */
  kubernetes: { minor: KubernetesMinor; source: KubernetesMinorSource; reported: string | null };
  /** False when admission is predicted to reject the request (see `failure`, `rejectedBeforeHooks`). */
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
  failure: FailureReport | null;
  /** Other failing bindings of the same policy stage: the apiserver names one of them all. */
  alsoFailing: FailureReport[];
  /**
   * A rejection before any hook: by an in-tree plugin (NamespaceLifecycle refusing a CREATE in
   * a namespace that does not exist), or by the router (`routing`: 405, or 404 where the path
   * serves no method; the resource serves no such method): no hook is called.
   */
  rejectedBeforeHooks: { plugin: string; status: number; message: string } | null;
  exclusions: { webhooks: string | null; policies: string | null };
  /**
   * True when the request cannot happen as given: its target admits every request as another
   * operation (a connect subresource, or CONNECT on anything else; see served-operations.ts).
   */
  neverSent: boolean;
  worstCaseLatencySeconds: number;
  /**
   * What the PodSecurity admission plugin does with the request, from its namespace's labels
   * (null when it does not evaluate the request, or the namespace is not known). It runs after
   * the mutating hooks and before the validating ones: `rejects` when it refuses the request for
   * certain (then no validating policy or webhook is called); `undecided` says why a refusal or
   * a warning may not hold.
   */
  podSecurity: PodSecurityReport | null;
  /**
   * The historical hooks (v1beta1 webhook configurations served apart from the cluster's own,
   * ExternalAdmissionHookConfigurations), each kind in its own section: which the request would
   * reach as the apiserver of their time matched them, and why the others are skipped. Empty
   * when there are none. They are not in `calls`: no current apiserver calls them.
   */
  legacy: LegacySectionReport[];
  notices: ReportNotice[];
}

const ref = (h: HookIdentity): HookRef => ({
  source: h.source,
  configuration: h.configuration,
  name: h.name,
  position: h.position,
  ...(h.origin ? { origin: h.origin } : {}),
});

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
  cmd: RequestSpec,
  input: RequestInputs,
): {
  request: AdmissionRequest;
  report: RequestReport;
  resolved: ResolvedResource;
  notices: ReportNotice[];
} {
  const notices: ReportNotice[] = [];
  const at = "request";
  const meta = obj(input.object, "metadata");
  const t = {
    apiVersion: str(input.object, "apiVersion"),
    kind: str(input.object, "kind"),
    name: str(meta, "name"),
  };
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
      // Live discovery lists every resource the cluster serves: a guess is one it does not.
      message:
        input.namespacesFrom === "cluster"
          ? `the cluster does not serve ${gvr} (kind ${t.kind || "unknown"} in ${t.apiVersion || "no apiVersion"}): the apiserver answers 404 NotFound before admission; the hooks below are those it would call if it served it`
          : `resource ${gvr} is inferred from kind ${t.kind}; name it with --resource if that is wrong`,
    });
  if (cmd.namespace !== undefined && objNs !== "" && cmd.namespace !== objNs)
    throw new RequestSpecError(
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
    // An object known by name only (a decision's DELETE read at Metadata level) has no kind: the
    // request's is its resource's, as the apiserver gives it (a subresource's body kind is not).
    kind:
      t.kind === "" && cmd.subresource === "" && resolved.kind.kind !== ""
        ? resolved.kind
        : { group: splitGroup(t.apiVersion), version: splitVersion(t.apiVersion), kind: t.kind },
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

/**
 * Predicts (compiling the snapshot unless it is compiled) and shapes the report. The historical
 * hooks are read from an uncompiled snapshot (a compiled one carries none).
 */
export function predictReport(
  request: AdmissionRequest,
  requestReport: RequestReport,
  snapshot: AdmissionSnapshot | CompiledSnapshot,
  notices: ReportNotice[],
  ownership?: EngineOwnershipIndex,
): PredictReport {
  const legacy = "mutatingIndex" in snapshot ? [] : predictLegacy(request, compileLegacy(snapshot));
  return reportOf(
    predict(request, snapshot),
    requestReport,
    [...notices, ...minorNotices(snapshot)],
    legacy,
    ownership,
    snapshot.kubernetes,
  );
}

/**
 * What the prediction assumes about the minor's defaults where the snapshot holds objects a
 * minor may not act on: static manifests before 1.37 (ManifestBasedAdmissionControlConfig is
 * alpha and off in 1.36, absent in 1.35), mutating admission policies in 1.35 (the
 * MutatingAdmissionPolicy gate is beta and off by default).
 */
export function minorNotices(snapshot: AdmissionSnapshot | CompiledSnapshot): ReportNotice[] {
  const b = behaviourOf(snapshot.kubernetes?.minor);
  const out: ReportNotice[] = [];
  const at = `Kubernetes ${b.minor}`;
  const statics =
    "mutatingIndex" in snapshot
      ? snapshot.mutatingStatic + snapshot.validatingStatic > 0 ||
        [...snapshot.mutatingPolicies, ...snapshot.validatingPolicies].some(
          (p) => p.id.origin !== undefined,
        )
      : Object.keys(snapshot.manifestOrigins ?? {}).length > 0;
  if (!b.staticManifests && statics)
    out.push({
      at,
      message: `static manifests are loaded only with the ManifestBasedAdmissionControlConfig feature gate on (${b.minor === "1.35" ? "absent in 1.35" : "alpha, off by default"}); predicted as if it were on`,
    });
  const maps =
    "mutatingIndex" in snapshot
      ? snapshot.mutatingPolicies.length > 0
      : (snapshot.mutatingAdmissionPolicies ?? []).length > 0;
  if (!b.mutatingAdmissionPoliciesByDefault && maps)
    out.push({
      at,
      message: `mutating admission policies act only with the MutatingAdmissionPolicy feature gate on (beta, off by default in ${b.minor}); predicted as if it were on`,
    });
  return out;
}

/** The engine behind one hook: a webhook at its position, or a policy through its binding. */
function ownerOf(
  ownership: EngineOwnershipIndex | undefined,
  h: HookIdentity,
): { owner: EngineOwnerReport } | Record<string, never> {
  if (!ownership) return {};
  let own;
  switch (h.source) {
    case "ValidatingWebhookConfiguration":
    case "MutatingWebhookConfiguration":
      own = ownershipOf(ownership, h.source, h.configuration, h.position);
      break;
    case "ValidatingAdmissionPolicy":
    case "MutatingAdmissionPolicy": {
      // The binding names the engine policy enforced (a Constraint), the policy its template.
      const binding = ownershipOf(ownership, `${h.source}Binding`, h.name);
      const policy = ownershipOf(ownership, h.source, h.configuration);
      own = binding?.source ? binding : (policy ?? binding);
      break;
    }
    default:
      return {};
  }
  if (!own) return {};
  return {
    owner: {
      engine: own.engine,
      certainty: own.certainty,
      ...(own.source ? { sourcePolicy: own.source } : {}),
      ...(own.sources.length > 1 ? { sourcePolicies: [...own.sources] } : {}),
    },
  };
}

/**
 * The report of a prediction already made (with its explainer). With `ownership`, calls and
 * failures name the policy engine behind their hook or policy where it is known.
 */
export function reportOf(
  { prediction: p, explainer }: Explained,
  requestReport: RequestReport,
  notices: ReportNotice[],
  legacy: LegacySectionReport[] = [],
  ownership?: EngineOwnershipIndex,
  kubernetes: AssumedMinor = { minor: NEWEST_KUBERNETES_MINOR, source: "default" },
): PredictReport {
  const failureReport = (f: PredictedFailure): FailureReport => ({
    stage: f.stage,
    hook: ref(f.hook),
    key: f.key,
    status: f.status,
    message: f.message,
    ...ownerOf(ownership, f.hook),
  });
  return {
    schema: "portcullis.predict/v1",
    kubernetes: {
      minor: kubernetes.minor,
      source: kubernetes.source,
      reported: kubernetes.reported ?? null,
    },
    admitted:
      p.failure === undefined && p.rejectedBeforeHooks === undefined && !p.podSecurity?.rejects,
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
      params: c.params ? [...c.params] : null,
      conditionError: c.conditionError ?? null,
      ...ownerOf(ownership, c.hook),
    })),
    skips: p.skips.map((s) => {
      const { message, ruleMismatches } = explainer.skip(s);
      return {
        stage: s.stage,
        hook: ref(s.hook),
        key: s.key,
        code: s.reason.code,
        reason: serializeSkipReason(s.reason),
        ruleMismatches,
        message,
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
    failure: p.failure ? failureReport(p.failure) : null,
    alsoFailing: p.alsoFailing.map(failureReport),
    rejectedBeforeHooks: p.rejectedBeforeHooks ? { ...p.rejectedBeforeHooks } : null,
    exclusions: {
      webhooks: p.exclusions.webhooks?.message ?? null,
      policies: p.exclusions.policies?.message ?? null,
    },
    neverSent: p.exclusions.webhooks?.code === "operation-never-sent",
    worstCaseLatencySeconds: p.worstCaseLatencySeconds,
    podSecurity: p.podSecurity ? podSecurityReport(p.podSecurity) : null,
    legacy,
    notices,
  };
}

function podSecurityReport(v: PodSecurityPrediction): PodSecurityReport {
  return {
    subject: v.subject,
    enforce: levelVersionString(v.policy.enforce),
    audit: levelVersionString(v.policy.audit),
    warn: levelVersionString(v.policy.warn),
    labelErrors: [...v.labelErrors],
    rejection: v.rejection ? { ...v.rejection } : null,
    rejects: v.rejects,
    warnings: [...v.warnings],
    auditAnnotations: { ...v.auditAnnotations },
    undecided: v.undecided ?? null,
    exemption: v.exemption ? { ...v.exemption } : null,
    assumption: v.assumption ?? null,
  };
}
