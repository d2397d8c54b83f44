/**
 * What the apiserver's PodSecurity admission plugin does with a request
 * (kubernetes `plugin/pkg/admission/security/podsecurity/admission.go`, delegating to
 * k8s.io/pod-security-admission `admission/admission.go`): it runs in the validating phase, after
 * every mutating plugin, policy and webhook, and before the validating admission policies and
 * webhooks. It handles CREATE and UPDATE of
 * - pods (not their exec, attach, binding, eviction, log, portforward, proxy or status
 *   subresources): a pod that violates the namespace's enforced standard is refused (403); one
 *   that violates its warn standard is let through with a warning;
 * - the workload resources that hold a pod template: warnings and audit annotations only, never
 *   a refusal;
 * - namespaces: labels that do not parse are refused (422).
 * The plugin's own configuration (cluster-wide default levels, exempt users, namespaces and
 * runtime classes) is not visible through the API: it comes from the apiserver's
 * AdmissionConfiguration (configuration.ts) when given; without it the verdict assumes the
 * built-in defaults (privileged, latest) and no exemption, and says so.
 */
import type { Labels } from "../model/selectors";
import type { PodSecurityConfig } from "../model/admission-configuration";
import { defaultPolicy, describeExemption, type PodSecurityExemption } from "./configuration";
import type { AdmissionRequest } from "../model/request";
import { goQuote } from "../validate/go-format";
import { isObject } from "../validate/json";
import { decodePod } from "./decode";
import {
  compareLevels,
  fullyPrivileged,
  LABEL_PREFIX,
  levelVersionString,
  policyToEvaluate,
  type LabelError,
  type LevelVersion,
  type Policy,
} from "./labels";
import { aggregate, evaluatePod, forbiddenDetail } from "./evaluate-pod";
import { versionString } from "./types";

/** The subresources of pods the plugin lets through unevaluated. */
const IGNORED_POD_SUBRESOURCES: ReadonlySet<string> = new Set([
  "exec",
  "attach",
  "binding",
  "eviction",
  "log",
  "portforward",
  "proxy",
  "status",
]);

/** `DefaultPodSpecExtractor`: the workload resources whose pod template is evaluated. */
const TEMPLATE_RESOURCES: ReadonlyMap<string, readonly string[]> = new Map([
  ["/replicationcontrollers", ["spec", "template"]],
  ["/podtemplates", ["template"]],
  ["apps/replicasets", ["spec", "template"]],
  ["apps/deployments", ["spec", "template"]],
  ["apps/daemonsets", ["spec", "template"]],
  ["apps/statefulsets", ["spec", "template"]],
  ["batch/jobs", ["spec", "template"]],
  ["batch/cronjobs", ["spec", "jobTemplate", "spec", "template"]],
]);

export interface PodSecurityVerdict {
  /** What the plugin evaluated. */
  readonly subject: "pod" | "pod-template" | "namespace";
  /** The standards the namespace's labels select (for a namespace request, its new labels). */
  readonly policy: Policy;
  /** Labels that do not parse, as the apiserver words them. */
  readonly labelErrors: string[];
  /** The plugin refuses the request (as the apiserver answers it). */
  readonly rejection: { readonly status: number; readonly message: string } | undefined;
  /** Warnings the apiserver returns with the response. */
  readonly warnings: string[];
  /** Audit annotations the plugin adds (keys with their `pod-security.kubernetes.io/` prefix). */
  readonly auditAnnotations: Record<string, string>;
  /**
   * Why the verdict may not hold: the pod is evaluated after the mutating hooks, which the
   * caller knows about; an UPDATE without the current object. Undefined when it is certain.
   */
  readonly undecided: string | undefined;
  /**
   * The plugin's configuration exempts the request (its namespace, its user, the pod's
   * RuntimeClass): it lets it through unevaluated, and this says why.
   */
  readonly exemption?: PodSecurityExemption & { readonly message: string };
  /**
   * Set when the plugin's configuration was not given: the verdict assumes the built-in
   * defaults (privileged, latest, in every mode) and no exemption.
   */
  readonly assumption?: string;
}

/** What a verdict made without the plugin's configuration says it assumes. */
export const ASSUMED_DEFAULTS =
  "assumes the PodSecurity plugin's built-in defaults (privileged:latest in every mode for namespaces without labels) and no exemptions: the apiserver's AdmissionConfiguration was not given";

/** `Policy.Equivalent`: every mode privileged in both, or the same level and version. */
function equivalentPolicies(a: Policy, b: Policy): boolean {
  const same = (x: LevelVersion, y: LevelVersion) =>
    (x.level === "privileged" && y.level === "privileged") ||
    levelVersionString(x) === levelVersionString(y);
  return same(a.enforce, b.enforce) && same(a.audit, b.audit) && same(a.warn, b.warn);
}

/**
 * `exemptNamespaceWarning`: a namespace exempt from Pod Security whose labels set a policy other
 * than the defaults is warned about, naming the modes its labels set.
 */
function exemptNamespaceWarning(
  name: string,
  policy: Policy,
  labels: Labels,
  defaults: Policy,
): string | undefined {
  if (fullyPrivileged(policy) || equivalentPolicies(policy, defaults)) return undefined;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, `${LABEL_PREFIX}${k}`);
  const parts: string[] = [];
  for (const mode of ["enforce", "audit", "warn"] as const)
    if (policy[mode].level !== "privileged" && (has(mode) || has(`${mode}-version`)))
      parts.push(`${mode}=${levelVersionString(policy[mode])}`);
  return `namespace ${goQuote(name)} is exempt from Pod Security, and the policy (${parts.join(", ")}) will be ignored`;
}

/** The exemption the configuration gives a request's namespace or user (checked in that order). */
function requestExemption(
  r: AdmissionRequest,
  config: PodSecurityConfig | undefined,
): PodSecurityExemption | undefined {
  if (!config) return undefined;
  const ns = r.namespace ?? "";
  if (ns !== "" && config.exemptions.namespaces.includes(ns)) return { by: "namespace", name: ns };
  const user = r.userInfo.username;
  if (user !== "" && config.exemptions.usernames.includes(user)) return { by: "user", name: user };
  return undefined;
}

/** A verdict that lets the request through unevaluated for an exemption. */
function exempted(
  subject: "pod" | "pod-template",
  policy: Policy,
  x: PodSecurityExemption,
  assumption: string | undefined,
): PodSecurityVerdict {
  return {
    subject,
    policy,
    labelErrors: [],
    rejection: undefined,
    warnings: [],
    auditAnnotations: { [`${LABEL_PREFIX}exempt`]: x.by },
    undecided: undefined,
    exemption: { ...x, message: describeExemption(x) },
    ...(assumption ? { assumption } : {}),
  };
}

function at(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const k of path) cur = isObject(cur) ? cur[k] : undefined;
  return cur;
}

function labelsOf(obj: unknown): Labels {
  const raw = at(obj, ["metadata", "labels"]);
  const out: Record<string, string> = {};
  if (isObject(raw))
    for (const [k, v] of Object.entries(raw)) if (typeof v === "string") out[k] = v;
  return out;
}

/** `field.Invalid(metadata.labels[KEY], value, message)`, as its error reads. */
const labelErrorText = (e: LabelError) =>
  `metadata.labels[${e.label}]: Invalid value: ${goQuote(e.value)}: ${e.message}`;

/** `apierrors.NewForbidden(groupResource, name, err)`'s message. */
function forbiddenMessage(r: AdmissionRequest, name: string, reason: string): string {
  const gr = r.group === "" ? r.resource : `${r.resource}.${r.group}`;
  return name === ""
    ? `${gr} is forbidden: ${reason}`
    : `${gr} ${goQuote(name)} is forbidden: ${reason}`;
}

/**
 * What stands for the five random characters the apiserver appends to a generateName (the name
 * a validating plugin sees is the generated one).
 */
const GENERATED_SUFFIX = "?????";

/** `names.SimpleNameGenerator`: at most 58 characters of the base, then five random ones. */
const MAX_GENERATED_BASE = 58;

/** True when a predicted message is the apiserver's, a generated name's random part aside. */
export function sameMessage(predicted: string, actual: string): boolean {
  if (!predicted.includes(GENERATED_SUFFIX)) return predicted === actual;
  const [head, ...rest] = predicted.split(GENERATED_SUFFIX);
  const tail = rest.join(GENERATED_SUFFIX);
  return (
    actual.length === predicted.length &&
    actual.startsWith(head as string) &&
    actual.endsWith(tail) &&
    /^[a-z0-9]{5}$/.test(actual.slice((head as string).length, (head as string).length + 5))
  );
}

/**
 * The name a validating plugin's attributes carry: the path's, else (on a CREATE) the object's,
 * or the one generated from its generateName (shown with GENERATED_SUFFIX).
 */
function attributesName(r: AdmissionRequest): string {
  if (r.name) return r.name;
  if (r.operation !== "CREATE") return "";
  const n = at(r.object, ["metadata", "name"]);
  if (typeof n === "string" && n !== "") return n;
  const g = at(r.object, ["metadata", "generateName"]);
  return typeof g === "string" && g !== ""
    ? `${g.slice(0, MAX_GENERATED_BASE)}${GENERATED_SUFFIX}`
    : "";
}

/**
 * `isSignificantPodUpdate`: an update is evaluated only when it changes how many containers or
 * init containers there are, a container's image, or adds or changes an ephemeral container's
 * image.
 */
function significantPodUpdate(pod: unknown, old: unknown): boolean {
  const list = (o: unknown, k: string): unknown[] => {
    const v = at(o, ["spec", k]);
    return Array.isArray(v) ? v : [];
  };
  const image = (c: unknown) =>
    typeof at(c, ["image"]) === "string" ? (at(c, ["image"]) as string) : "";
  const name = (c: unknown) =>
    typeof at(c, ["name"]) === "string" ? (at(c, ["name"]) as string) : "";
  for (const k of ["containers", "initContainers"]) {
    const now = list(pod, k);
    const before = list(old, k);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => image(c) !== image(before[i]))) return true;
  }
  const before = list(old, "ephemeralContainers");
  for (const c of list(pod, "ephemeralContainers")) {
    const o = before.find((x) => name(x) === name(c));
    if (o === undefined || image(o) !== image(c)) return true;
  }
  return false;
}

function evaluate(
  r: AdmissionRequest,
  subject: "pod" | "pod-template",
  policy: Policy,
  errors: LabelError[],
  metadata: unknown,
  spec: unknown,
  config: PodSecurityConfig | undefined,
  newestMinor: number | undefined,
): PodSecurityVerdict {
  // `EvaluatePod`: an exempt RuntimeClass first.
  const runtimeClass = at(spec, ["runtimeClassName"]);
  if (
    config &&
    typeof runtimeClass === "string" &&
    runtimeClass !== "" &&
    config.exemptions.runtimeClasses.includes(runtimeClass)
  )
    return exempted(subject, policy, { by: "runtimeClass", name: runtimeClass }, undefined);
  const { meta, spec: podSpec } = decodePod(
    metadata,
    spec,
    subject === "pod-template" ? "template" : r.operation === "CREATE" ? "created-pod" : "pod",
  );
  const cache = new Map<string, ReturnType<typeof aggregate>>();
  const result = (lv: LevelVersion) => {
    const k = levelVersionString(lv);
    let a = cache.get(k);
    if (!a) cache.set(k, (a = aggregate(evaluatePod(lv, meta, podSpec, newestMinor))));
    return a;
  };
  const auditAnnotations: Record<string, string> = {};
  if (errors.length > 0)
    auditAnnotations[`${LABEL_PREFIX}error`] =
      `Failed to parse policy: ${errors.length === 1 ? labelErrorText(errors[0] as LabelError) : `[${errors.map(labelErrorText).join(", ")}]`}`;
  let rejection: PodSecurityVerdict["rejection"];
  if (subject === "pod") {
    auditAnnotations[`${LABEL_PREFIX}enforce-policy`] = levelVersionString(policy.enforce);
    const enforced = result(policy.enforce);
    if (!enforced.allowed)
      rejection = {
        status: 403,
        message: forbiddenMessage(
          r,
          attributesName(r),
          `violates PodSecurity ${goQuote(levelVersionString(policy.enforce))}: ${forbiddenDetail(enforced)}`,
        ),
      };
  }
  const audited = result(policy.audit);
  if (!audited.allowed)
    auditAnnotations[`${LABEL_PREFIX}audit-violations`] =
      `would violate PodSecurity ${goQuote(levelVersionString(policy.audit))}: ${forbiddenDetail(audited)}`;
  const warnings: string[] = [];
  if (!rejection) {
    const warned = result(policy.warn);
    if (!warned.allowed)
      warnings.push(
        `would violate PodSecurity ${goQuote(levelVersionString(policy.warn))}: ${forbiddenDetail(warned)}`,
      );
  }
  return {
    subject,
    policy,
    labelErrors: errors.map(labelErrorText),
    rejection,
    warnings,
    auditAnnotations,
    undecided: undefined,
  };
}

/**
 * What PodSecurity does with the request, given the labels of its namespace (undefined when the
 * namespace is not known: a pod's verdict is then not given). Undefined when the plugin does not
 * evaluate the request.
 */
export function podSecurityVerdict(
  r: AdmissionRequest,
  namespaceLabels: Labels | undefined,
  config?: PodSecurityConfig,
  /**
   * The apiserver's minor (e.g. 36): its checks are the newest it has, so `latest` and newer
   * versions evaluate as that minor's (1.37 allowed two more sysctls). Default: every check here.
   */
  newestMinor?: number,
): PodSecurityVerdict | undefined {
  const v = verdictOf(r, namespaceLabels, config, newestMinor);
  return v && !config ? { ...v, assumption: ASSUMED_DEFAULTS } : v;
}

function verdictOf(
  r: AdmissionRequest,
  namespaceLabels: Labels | undefined,
  config: PodSecurityConfig | undefined,
  newestMinor: number | undefined,
): PodSecurityVerdict | undefined {
  const defaults = defaultPolicy(config);
  if (r.operation !== "CREATE" && r.operation !== "UPDATE") return undefined;
  if (r.group === "" && r.resource === "namespaces") {
    if (r.subresource !== "") return undefined;
    const labels = labelsOf(r.object);
    const { policy, errors } = policyToEvaluate(labels, defaults);
    // For a Namespace the request's namespace is the namespace itself.
    const self = attributesName(r) || (r.namespace ?? "");
    const exempt =
      config !== undefined && self !== "" && config.exemptions.namespaces.includes(self);
    const exemptWarning = exempt
      ? exemptNamespaceWarning(self, policy, labels, defaults)
      : undefined;
    const base = {
      subject: "namespace" as const,
      policy,
      labelErrors: errors.map(labelErrorText),
      warnings: [] as string[],
      auditAnnotations: {},
    };
    if (errors.length === 0) {
      // `ValidateNamespace`: an UPDATE that makes the enforced standard stricter is let through
      // with a warning for each existing pod that would violate it (the pods are not known here).
      if (r.operation === "CREATE")
        return {
          ...base,
          warnings: exemptWarning ? [exemptWarning] : [],
          rejection: undefined,
          undecided: undefined,
        };
      const old =
        r.operation === "UPDATE" && r.oldObject
          ? policyToEvaluate(labelsOf(r.oldObject), defaults).policy
          : undefined;
      const stricter =
        r.operation === "UPDATE" &&
        policy.enforce.level !== "privileged" &&
        (!old || levelVersionString(old.enforce) !== levelVersionString(policy.enforce)) &&
        !(
          old &&
          versionString(old.enforce.version) === versionString(policy.enforce.version) &&
          compareLevels(policy.enforce.level, old.enforce.level) < 1
        );
      if (stricter && exempt)
        return {
          ...base,
          warnings: exemptWarning ? [exemptWarning] : [],
          rejection: undefined,
          undecided: old
            ? undefined
            : "if this makes the enforced standard stricter, the apiserver warns that the exempt namespace's policy will be ignored; its current labels are not known",
        };
      return {
        ...base,
        rejection: undefined,
        undecided: stricter
          ? `${old ? "" : "if this makes the enforced standard stricter, "}the apiserver checks the namespace's existing pods against ${levelVersionString(policy.enforce)} and warns about each that would violate it; its pods are not known here`
          : undefined,
      };
    }
    if (r.operation === "UPDATE") {
      if (!r.oldObject)
        return {
          ...base,
          rejection: undefined,
          undecided:
            "labels that do not parse are refused unless the namespace already had the same ones; its current labels are not known",
        };
      const old = policyToEvaluate(labelsOf(r.oldObject), defaults).errors.map(labelErrorText);
      if (old.length > 0 && old.join("\n") === base.labelErrors.join("\n"))
        return { ...base, rejection: undefined, undecided: undefined };
    }
    const unique = [...new Set(base.labelErrors)];
    const detail = unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
    return {
      ...base,
      rejection: {
        status: 422,
        message: `Namespace ${goQuote(attributesName(r))} is invalid: ${detail}`,
      },
      undecided: undefined,
    };
  }
  if (!r.namespace) return undefined;
  const isPod = r.group === "" && r.resource === "pods";
  const templatePath = TEMPLATE_RESOURCES.get(`${r.group}/${r.resource}`);
  if (isPod ? IGNORED_POD_SUBRESOURCES.has(r.subresource) : !templatePath || r.subresource !== "")
    return undefined;
  // Exempt namespaces and users are let through before the namespace is read.
  const exemption = requestExemption(r, config);
  if (exemption) {
    const policy = namespaceLabels ? policyToEvaluate(namespaceLabels, defaults).policy : defaults;
    return exempted(isPod ? "pod" : "pod-template", policy, exemption, undefined);
  }
  if (namespaceLabels === undefined) return undefined;
  const { policy, errors } = policyToEvaluate(namespaceLabels, defaults);
  if (isPod) {
    const privileged = errors.length === 0 && fullyPrivileged(policy);
    if (privileged)
      return {
        subject: "pod",
        policy,
        labelErrors: [],
        rejection: undefined,
        warnings: [],
        auditAnnotations: { [`${LABEL_PREFIX}enforce-policy`]: "privileged:latest" },
        undecided: undefined,
      };
    if (r.operation === "UPDATE") {
      if (!r.oldObject) {
        const v = evaluate(
          r,
          "pod",
          policy,
          errors,
          at(r.object, ["metadata"]),
          at(r.object, ["spec"]),
          config,
          newestMinor,
        );
        return {
          ...v,
          undecided:
            "an update is evaluated only when it changes a container's image or the number of containers, or adds an ephemeral container; the pod's current state is not known",
        };
      }
      if (!significantPodUpdate(r.object, r.oldObject))
        return {
          subject: "pod",
          policy,
          labelErrors: errors.map(labelErrorText),
          rejection: undefined,
          warnings: [],
          auditAnnotations: {},
          undecided: undefined,
        };
    }
    return evaluate(
      r,
      "pod",
      policy,
      errors,
      at(r.object, ["metadata"]),
      at(r.object, ["spec"]),
      config,
      newestMinor,
    );
  }
  const path = templatePath as readonly string[];
  if (
    errors.length === 0 &&
    policy.warn.level === "privileged" &&
    policy.audit.level === "privileged"
  )
    return undefined;
  const template = at(r.object, path);
  // (A ReplicationController's template is optional: without one it is let through unevaluated;
  // the other resources always have one, empty if not given.)
  if (r.resource === "replicationcontrollers" && (template === undefined || template === null))
    return undefined;
  return evaluate(
    r,
    "pod-template",
    policy,
    errors,
    at(template, ["metadata"]),
    at(template, ["spec"]),
    config,
    newestMinor,
  );
}
