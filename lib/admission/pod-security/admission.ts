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
 * runtime classes) is not visible through the API: this reads the defaults it has when none is
 * given, and no exemption.
 */
import type { Labels } from "../model/selectors";
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
): PodSecurityVerdict {
  const { meta, spec: podSpec } = decodePod(
    metadata,
    spec,
    subject === "pod-template" ? "template" : r.operation === "CREATE" ? "created-pod" : "pod",
  );
  const cache = new Map<string, ReturnType<typeof aggregate>>();
  const result = (lv: LevelVersion) => {
    const k = levelVersionString(lv);
    let a = cache.get(k);
    if (!a) cache.set(k, (a = aggregate(evaluatePod(lv, meta, podSpec))));
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
): PodSecurityVerdict | undefined {
  if (r.operation !== "CREATE" && r.operation !== "UPDATE") return undefined;
  if (r.group === "" && r.resource === "namespaces") {
    if (r.subresource !== "") return undefined;
    const { policy, errors } = policyToEvaluate(labelsOf(r.object));
    const base = {
      subject: "namespace" as const,
      policy,
      labelErrors: errors.map(labelErrorText),
      warnings: [],
      auditAnnotations: {},
    };
    if (errors.length === 0) {
      // `ValidateNamespace`: an UPDATE that makes the enforced standard stricter is let through
      // with a warning for each existing pod that would violate it (the pods are not known here).
      const old =
        r.operation === "UPDATE" && r.oldObject
          ? policyToEvaluate(labelsOf(r.oldObject)).policy
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
      const old = policyToEvaluate(labelsOf(r.oldObject)).errors.map(labelErrorText);
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
  if (namespaceLabels === undefined || !r.namespace) return undefined;
  const { policy, errors } = policyToEvaluate(namespaceLabels);
  if (r.group === "" && r.resource === "pods") {
    if (IGNORED_POD_SUBRESOURCES.has(r.subresource)) return undefined;
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
    return evaluate(r, "pod", policy, errors, at(r.object, ["metadata"]), at(r.object, ["spec"]));
  }
  const path = TEMPLATE_RESOURCES.get(`${r.group}/${r.resource}`);
  if (!path || r.subresource !== "") return undefined;
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
  );
}
