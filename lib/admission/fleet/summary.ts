/**
 * One cluster of the fleet in numbers: its hooks and policies counted, the fail-closed hooks over
 * its bootstrap-critical namespaces (kube-system and those labelled runlevel 0 or 1, from the
 * exemption matrix), caBundles expiring within 30 days (the health CA judgement), Service
 * backends without a ready endpoint (the backend judgement lint L7 and the Health page share),
 * lint findings by severity, the policy engines it runs with their versions, and every object
 * as the drift comparison reads it. Pure: the server computes it per cluster, the tests directly.
 */
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import {
  minorOfVersion,
  NEWEST_KUBERNETES_MINOR,
  type AssumedMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type { V1EndpointSlice, V1Pod, V1Service } from "@/lib/k8s/types";
import type { WorkloadLike } from "@/lib/admission/lint/deadlock";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { exemptionMatrix } from "@/lib/admission/exemptions/exemptions";
import { failClosedInterceptors } from "@/lib/admission/exemptions/exemption-views";
import { parseCaBundle } from "@/lib/admission/health/pem";
import { caFactsOf } from "@/lib/admission/health/ca-judgement";
import { judgeServiceBackend, serviceBackendFacts } from "@/lib/admission/health/backend-judgement";
import { lint } from "@/lib/admission/lint/lint";
import type { Severity } from "@/lib/admission/lint/lint-types";
import { ownershipOf, recogniseOwnership } from "@/lib/admission/engines/ownership";
import type { EngineSources } from "@/lib/admission/engines/sources";
import type { EngineName } from "@/lib/admission/engines/types";
import { comparablesOf, engineLabel, type Comparable, type ComparableKind } from "./comparable";

/** What one cluster's summary is made from (what server/engines' lint state reads). */
export interface ClusterInput {
  readonly snapshot: AdmissionSnapshot;
  readonly services?: readonly V1Service[];
  readonly endpointSlices?: readonly V1EndpointSlice[];
  readonly pods?: readonly V1Pod[];
  readonly workloads?: readonly WorkloadLike[];
  readonly serverMinor?: number;
  /**
   * The cluster's /version: the minor whose semantics the summary assumes (matchConditions'
   * cel-go, the virtual-resource exclusion lint reads) unless the snapshot names one.
   */
  readonly version?: {
    readonly gitVersion?: string;
    readonly major?: string;
    readonly minor?: string;
  };
  readonly engines?: EngineSources;
  readonly now: Date;
}

/** A hook named in a summary: its configuration (or policy) and its name. */
interface HookRef {
  readonly kind: string;
  readonly configuration: string;
  readonly hook: string;
}

export interface ClusterAdmissionSummary {
  readonly counts: {
    readonly mutatingWebhookConfigurations: number;
    readonly validatingWebhookConfigurations: number;
    /** Webhooks inside the configurations above. */
    readonly webhooks: number;
    readonly validatingAdmissionPolicies: number;
    readonly validatingAdmissionPolicyBindings: number;
    readonly mutatingAdmissionPolicies: number;
    readonly mutatingAdmissionPolicyBindings: number;
  };
  /** Fail-closed hooks and bindings that intercept a pod create in a critical namespace. */
  readonly failClosedCritical: ReadonlyArray<HookRef & { readonly namespaces: readonly string[] }>;
  /** Hooks whose caBundle's earliest valid certificate expires within CA_WARN_DAYS (or has). */
  readonly caExpiring: ReadonlyArray<HookRef & { readonly daysLeft: number }>;
  /** Service-backed hooks the apiserver cannot reach: no Service, no port, no ready endpoint. */
  readonly backendsNotReady: ReadonlyArray<
    HookRef & { readonly service: string; readonly code: string }
  >;
  /** Undefined when the Services or their EndpointSlices could not be read. */
  readonly backendsKnown: boolean;
  readonly lint: Readonly<Record<Severity, number>>;
  /** The policy engines that own objects here, with the version their objects are labelled with. */
  readonly engines: ReadonlyArray<{ readonly engine: EngineName; readonly version?: string }>;
  /** The Kubernetes minor the summary (its lint and fail-closed hooks) assumed, and why. */
  readonly kubernetes: AssumedMinor;
}

const CA_WARN_DAYS = 30;

/** The namespaces whose fail-closed hooks can stop a cluster's own bootstrap. */
export function criticalNamespaces(
  namespaces: Readonly<Record<string, Readonly<Record<string, string>>>>,
): string[] {
  return Object.entries(namespaces)
    .filter(
      ([name, labels]) =>
        name === "kube-system" || labels["runlevel"] === "0" || labels["runlevel"] === "1",
    )
    .map(([name]) => name)
    .sort();
}

const VERSION_LABELS = ["app.kubernetes.io/version", "helm.sh/chart"];

type Meta = { metadata?: { name?: string; labels?: Record<string, string> } };

/** One cluster summarised, and its objects as the drift comparison reads them. */
export function summarizeCluster(input: ClusterInput): {
  summary: ClusterAdmissionSummary;
  comparables: Comparable[];
} {
  const kubernetes: AssumedMinor = input.snapshot.kubernetes ??
    (input.version && minorOfVersion(input.version)) ?? {
      minor: NEWEST_KUBERNETES_MINOR,
      source: "default",
    };
  const s: AdmissionSnapshot = { ...input.snapshot, kubernetes };
  const mutating = s.mutatingWebhookConfigurations ?? [];
  const validating = s.validatingWebhookConfigurations ?? [];
  const compiled = compileSnapshot(s);

  // Fail-closed over kube-system and runlevel 0–1, from the exemption matrix (pod creates).
  const matrix = exemptionMatrix(compiled);
  const critical = new Map<string, HookRef & { namespaces: string[] }>();
  for (const ns of criticalNamespaces(s.namespaces ?? {})) {
    for (const h of failClosedInterceptors(matrix, ns)) {
      const k = h.hook.key;
      const e = critical.get(k) ?? {
        kind: h.hook.source,
        configuration: h.hook.configuration,
        hook: h.hook.name,
        namespaces: [],
      };
      e.namespaces.push(ns);
      critical.set(k, e);
    }
  }

  // caBundles and Service backends, hook by hook.
  const now = input.now.getTime();
  const caExpiring: Array<HookRef & { daysLeft: number }> = [];
  const backendsNotReady: Array<HookRef & { service: string; code: string }> = [];
  const backendsKnown = input.services !== undefined && input.endpointSlices !== undefined;
  const configs: Array<[string, readonly unknown[]]> = [
    ["MutatingWebhookConfiguration", mutating],
    ["ValidatingWebhookConfiguration", validating],
  ];
  for (const [kind, list] of configs) {
    for (const cfg of list as ReadonlyArray<
      Meta & { webhooks?: ReadonlyArray<Record<string, unknown>> }
    >) {
      const configuration = cfg.metadata?.name ?? "";
      for (const w of cfg.webhooks ?? []) {
        const hook = typeof w["name"] === "string" ? w["name"] : "";
        const ref = { kind, configuration, hook };
        const cc = (w["clientConfig"] ?? {}) as {
          caBundle?: string;
          service?: { namespace?: string; name?: string; port?: number };
        };
        if (cc.caBundle) {
          const parsed = parseCaBundle(cc.caBundle);
          const certs = parsed.flatMap((c) =>
            c.ok
              ? [{ notBefore: c.notBefore.toISOString(), notAfter: c.notAfter.toISOString() }]
              : [],
          );
          const facts = caFactsOf(certs, undefined, now);
          if (facts.daysLeft !== undefined && facts.daysLeft < CA_WARN_DAYS)
            caExpiring.push({ ...ref, daysLeft: facts.daysLeft });
        }
        const svc = cc.service;
        if (backendsKnown && svc?.namespace && svc.name) {
          const service = input.services?.find(
            (x) => x.metadata?.namespace === svc.namespace && x.metadata?.name === svc.name,
          );
          const slices = (input.endpointSlices ?? []).filter(
            (x) =>
              x.metadata?.namespace === svc.namespace &&
              x.metadata?.labels?.["kubernetes.io/service-name"] === svc.name,
          );
          const facts = serviceBackendFacts(service, slices, svc.port ?? 443);
          const failClosed = (w["failurePolicy"] ?? "Fail") === "Fail";
          const blocking = judgeServiceBackend(facts, failClosed).find((j) =>
            ["service-missing", "service-port-missing", "no-ready-endpoints"].includes(j.code),
          );
          if (blocking)
            backendsNotReady.push({
              ...ref,
              service: `${svc.namespace}/${svc.name}`,
              code: blocking.code,
            });
        }
      }
    }
  }

  // Lint, as the webhook pages run it with live state.
  const findings = lint({
    snapshot: s,
    ...(input.services ? { services: input.services } : {}),
    ...(input.endpointSlices ? { endpointSlices: input.endpointSlices } : {}),
    ...(input.pods ? { pods: input.pods } : {}),
    ...(input.workloads ? { workloads: input.workloads } : {}),
    serverMinor: input.serverMinor ?? Number(kubernetes.minor.slice(2)),
    ...(input.engines ? { engines: input.engines } : {}),
    now: input.now,
  });
  const bySeverity: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const f of findings) bySeverity[f.severity]++;

  // Engines and their versions, from the objects they own.
  const ownership = recogniseOwnership(s, input.engines);
  const lists: Record<ComparableKind, readonly Meta[]> = {
    MutatingWebhookConfiguration: mutating,
    ValidatingWebhookConfiguration: validating,
    ValidatingAdmissionPolicy: s.validatingAdmissionPolicies ?? [],
    ValidatingAdmissionPolicyBinding: s.validatingAdmissionPolicyBindings ?? [],
    MutatingAdmissionPolicy: s.mutatingAdmissionPolicies ?? [],
    MutatingAdmissionPolicyBinding: s.mutatingAdmissionPolicyBindings ?? [],
  };
  const engineVersions = new Map<EngineName, string | undefined>();
  const engineOf = (kind: ComparableKind, name: string): string | undefined => {
    const owner = ownershipOf(ownership, kind, name);
    if (!owner) return undefined;
    const labels = lists[kind].find((o) => o.metadata?.name === name)?.metadata?.labels ?? {};
    const version = VERSION_LABELS.map((l) => labels[l]).find(
      (v) => typeof v === "string" && v !== "",
    );
    if (!engineVersions.has(owner.engine) || (version && !engineVersions.get(owner.engine)))
      engineVersions.set(owner.engine, version);
    return engineLabel(owner.engine, version);
  };
  const comparables = comparablesOf(s, engineOf);

  const webhooks = [...mutating, ...validating].reduce(
    (n, c) => n + ((c as { webhooks?: unknown[] }).webhooks?.length ?? 0),
    0,
  );
  return {
    summary: {
      counts: {
        mutatingWebhookConfigurations: mutating.length,
        validatingWebhookConfigurations: validating.length,
        webhooks,
        validatingAdmissionPolicies: s.validatingAdmissionPolicies?.length ?? 0,
        validatingAdmissionPolicyBindings: s.validatingAdmissionPolicyBindings?.length ?? 0,
        mutatingAdmissionPolicies: s.mutatingAdmissionPolicies?.length ?? 0,
        mutatingAdmissionPolicyBindings: s.mutatingAdmissionPolicyBindings?.length ?? 0,
      },
      failClosedCritical: [...critical.values()],
      caExpiring,
      backendsNotReady,
      backendsKnown,
      lint: bySeverity,
      engines: [...engineVersions].map(([engine, version]) => ({
        engine,
        ...(version ? { version } : {}),
      })),
      kubernetes,
    },
    comparables,
  };
}
