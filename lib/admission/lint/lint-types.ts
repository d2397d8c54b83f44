/** Types shared by the lint checks (reference §7.2). */
import type { V1EndpointSlice, V1Pod, V1Service } from "@/lib/k8s/types";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { CompiledSnapshot, CompiledWebhook } from "@/lib/admission/matching/compile";
import type { WorkloadLike } from "@/lib/admission/lint/deadlock";
import type { EngineName, SourcePolicyRef } from "@/lib/admission/engines/types";
import type { EngineSources } from "@/lib/admission/engines/sources";
import type { EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import type { EngineJoins } from "@/lib/admission/engines/joins";

/** Finding severity. */
export type Severity = "critical" | "high" | "medium" | "low" | "info";

/** Check ids L1–L24 (L20–L24: the policy engines). */
export type LintId =
  | "L1"
  | "L2"
  | "L3"
  | "L4"
  | "L5"
  | "L6"
  | "L7"
  | "L8"
  | "L9"
  | "L10"
  | "L11"
  | "L12"
  | "L13"
  | "L14"
  | "L15"
  | "L16"
  | "L17"
  | "L18"
  | "L19"
  | "L20"
  | "L21"
  | "L22"
  | "L23"
  | "L24";

/** An object a finding is about. */
export interface LintObject {
  readonly kind: string;
  readonly name: string;
  readonly hook?: string;
  readonly namespace?: string;
  /** The policy engine that owns the object, when recognised. */
  readonly engine?: EngineName;
  /** The engine policy the object carries, when known. */
  readonly sourcePolicy?: SourcePolicyRef;
}

/** A concrete change: an RFC 6902 patch against the configuration, and/or a merge snippet. */
export interface LintFix {
  readonly description: string;
  readonly target?: LintObject;
  readonly jsonPatch?: ReadonlyArray<{
    op: "add" | "replace" | "remove" | "test";
    path: string;
    value?: unknown;
  }>;
  readonly merge?: unknown;
}

/** One finding. */
export interface LintFinding {
  readonly id: LintId;
  readonly severity: Severity;
  readonly title: string;
  readonly objects: readonly LintObject[];
  readonly explanation: string;
  readonly fix: LintFix | undefined;
  /** The policy engine behind the finding's first engine-owned object, when there is one. */
  readonly engine?: EngineName;
  /** The engine policy behind it, when known. */
  readonly sourcePolicy?: SourcePolicyRef;
}

/** Optional metrics from the apiserver, keyed by webhook name. */
interface LintMetrics {
  readonly failOpenPerSecond?: Readonly<Record<string, number>>;
  readonly p99LatencySeconds?: Readonly<Record<string, number>>;
}

/** Everything lint reads; only `snapshot` is required (offline checks). */
export interface LintInput {
  readonly snapshot: AdmissionSnapshot;
  readonly services?: readonly V1Service[];
  readonly endpointSlices?: readonly V1EndpointSlice[];
  readonly pods?: readonly V1Pod[];
  /** Deployments, DaemonSets, StatefulSets: their pod templates stand in for pods not running. */
  readonly workloads?: readonly WorkloadLike[];
  readonly metrics?: LintMetrics;
  /** Server minor version (e.g. 37); virtual-resource exclusion applies from 37. Default 37. */
  readonly serverMinor?: number;
  /** Namespaces treated as bootstrap-critical besides kube-system/kube-public/kube-node-lease. */
  readonly criticalNamespaces?: readonly string[];
  /** `--request-timeout` in seconds (default 60). */
  readonly requestTimeoutSeconds?: number;
  /** For certificate expiry (default: now). */
  readonly now?: Date;
  /** Warn when a CA certificate expires within this many days (default 30). */
  readonly certWarningDays?: number;
  /**
   * The policy engines' own policies (Constraints, ClusterPolicies, …) when read. Absent: the
   * engine checks use what the admission objects alone show.
   */
  readonly engines?: EngineSources;
}

/** What the engine checks read: who owns what, and the joins to the engines' policies. */
export interface EngineLintContext {
  readonly sources: EngineSources;
  readonly ownership: EngineOwnershipIndex;
  readonly joins: EngineJoins;
}

/** What each check function receives. */
export interface LintContext {
  readonly input: LintInput;
  readonly compiled: CompiledSnapshot;
  readonly engines: EngineLintContext;
}

/** The configuration object a webhook lives in. */
export function webhookObject(h: CompiledWebhook): LintObject {
  return { kind: h.id.source, name: h.id.configuration, hook: h.id.name };
}

/** JSON pointer to a webhook inside its configuration. */
export function webhookPath(h: CompiledWebhook, field: string): string {
  return `/webhooks/${h.id.position}/${field}`;
}

/** A patch adding one requirement to a webhook's namespaceSelector, whatever its current shape. */
export function namespaceRequirementFix(
  h: CompiledWebhook,
  requirement: { key: string; operator: string; values: string[] },
  description: string,
): LintFix {
  const sel = h.match.namespaceSelector;
  const hasExpressions = sel.requirements.some((r) => !r.fromMatchLabels);
  const path = webhookPath(h, "namespaceSelector");
  return {
    description,
    target: webhookObject(h),
    jsonPatch: sel.empty
      ? [{ op: "add", path, value: { matchExpressions: [requirement] } }]
      : hasExpressions
        ? [{ op: "add", path: `${path}/matchExpressions/-`, value: requirement }]
        : [{ op: "add", path: `${path}/matchExpressions`, value: [requirement] }],
    merge: {
      webhooks: [{ name: h.id.name, namespaceSelector: { matchExpressions: [requirement] } }],
    },
  };
}

/** The standard runlevel exemption (`runlevel NotIn ["0","1"]`) as a concrete patch. */
export function runlevelExemptionFix(
  h: CompiledWebhook,
  values: readonly string[] = ["0", "1"],
): LintFix {
  return namespaceRequirementFix(
    h,
    { key: "runlevel", operator: "NotIn", values: [...values] },
    `exclude namespaces labelled runlevel in (${values.join(",")}) and label the bootstrap namespaces accordingly`,
  );
}
