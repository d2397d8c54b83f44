/**
 * `portcullis lint`: the admission risk checks (L1–L24; L20–L24 over the policy engines, whose
 * own objects — Constraints, ClusterPolicies, Kubewarden policies — may be given in the input). Offline, only the checks decidable from
 * configurations (and --namespaces) run; with --context the cluster's namespaces, discovery,
 * services, endpoint slices and pods let the others run too (L14 always needs metrics).
 */
import type {
  AssumedMinor,
  KubernetesMinor,
  KubernetesMinorSource,
} from "@/lib/admission/model/kubernetes-minor";
import type { LintCheck } from "@/lib/admission/lint/lint";
import { LINT_CHECKS, lint } from "@/lib/admission/lint/lint";
import type { LintFinding, LintId, LintInput, Severity } from "@/lib/admission/lint/lint-types";
import type { FailOn, LintCommand } from "../args";
import type { Notice } from "../snapshot";
import { loadState, type State } from "../state";
import type { V1Service } from "@/lib/k8s/types";
import { parseEngineObjects } from "@/lib/admission/engines/sources";

const RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** `portcullis lint --output json`. */
export interface LintReport {
  schema: "portcullis.lint/v1";
  /** True when no finding is at or above `failOn`. */
  ok: boolean;
  failOn: FailOn;
  /** offline: files only; live: --context supplied cluster state. */
  mode: "offline" | "live";
  /** The Kubernetes minor the checks assumed, and where it came from (as predict's report). */
  kubernetes: { minor: KubernetesMinor; source: KubernetesMinorSource; reported: string | null };
  summary: {
    configurations: number;
    namespaces: number;
    findings: number;
    bySeverity: Record<Severity, number>;
  };
  checks: {
    run: LintId[];
    notRun: { ids: LintId[]; needs: string }[];
  };
  findings: LintFinding[];
  notices: Notice[];
}

/** True when `severity` is at or above the threshold. */
function failsAt(severity: Severity, failOn: FailOn): boolean {
  return RANK[severity] <= RANK[failOn];
}

/** Which checks a mode runs. L14 reads metrics, which the command line never has. */
function checksFor(mode: "offline" | "live"): { run: LintCheck[]; notRun: LintCheck[] } {
  const runs = (c: LintCheck) => (mode === "offline" ? c.offline : !c.ids.includes("L14"));
  return { run: LINT_CHECKS.filter(runs), notRun: LINT_CHECKS.filter((c) => !runs(c)) };
}

/** Shapes the report from findings (pure). */
function lintReport(
  findings: LintFinding[],
  opts: {
    failOn: FailOn;
    mode: "offline" | "live";
    configurations: number;
    namespaces: number;
    notices: Notice[];
    kubernetes: AssumedMinor;
  },
): LintReport {
  const { run, notRun } = checksFor(opts.mode);
  const runIds = new Set(run.flatMap((c) => c.ids));
  // lint() without offlineOnly also runs checks with nothing to read; report only what ran.
  const kept = findings.filter((f) => runIds.has(f.id));
  const bySeverity: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const f of kept) bySeverity[f.severity]++;
  return {
    schema: "portcullis.lint/v1",
    ok: !kept.some((f) => failsAt(f.severity, opts.failOn)),
    failOn: opts.failOn,
    mode: opts.mode,
    kubernetes: {
      minor: opts.kubernetes.minor,
      source: opts.kubernetes.source,
      reported: opts.kubernetes.reported ?? null,
    },
    summary: {
      configurations: opts.configurations,
      namespaces: opts.namespaces,
      findings: kept.length,
      bySeverity,
    },
    checks: {
      run: run.flatMap((c) => [...c.ids]),
      notRun: notRun.map((c) => ({ ids: [...c.ids], needs: c.needs })),
    },
    findings: kept,
    notices: opts.notices,
  };
}

/** `namespace/name` of the Services that service-backed webhooks name but the input lacks. */
function serviceBackedWithout(
  collected: State["collected"],
  services: readonly V1Service[],
): string[] {
  const have = new Set(
    services.map((s) => `${s.metadata?.namespace ?? ""}/${s.metadata?.name ?? ""}`),
  );
  const out = new Set<string>();
  for (const cfg of [
    ...collected.lists.mutatingWebhookConfigurations,
    ...collected.lists.validatingWebhookConfigurations,
  ])
    for (const w of cfg.webhooks ?? []) {
      const svc = w.clientConfig?.service;
      if (svc && !have.has(`${svc.namespace}/${svc.name}`)) out.add(`${svc.namespace}/${svc.name}`);
    }
  return [...out].sort();
}

/** Runs the command. */
export async function runLint(cmd: LintCommand): Promise<LintReport> {
  const state = await loadState({
    inputs: cmd.inputs,
    namespacesFile: cmd.namespaces,
    context: cmd.context,
    kubeconfig: cmd.kubeconfig,
    admissionManifests: cmd.admissionManifests,
    kubernetesVersion: cmd.kubernetesVersion,
  });
  const notices = [...state.collected.notices];
  const mode = state.live ? "live" : "offline";
  const engines = parseEngineObjects(state.collected.engineObjects);
  for (const u of engines.unrecognised)
    notices.push({
      at: "lint",
      message: `${u.kind} ${u.namespace ? `${u.namespace}/` : ""}${u.name} (${u.engine}) not read: ${u.reason}`,
    });
  let input: LintInput = {
    snapshot: {
      ...state.collected.lists,
      namespaces: state.namespaces,
      ...(state.manifestOrigins ? { manifestOrigins: state.manifestOrigins } : {}),
      kubernetes: state.kubernetes,
    },
    ...(engines.policies.length > 0 ? { engines } : {}),
    // The minor's defaults the version-dependent checks read (L13: virtual auth resources).
    serverMinor: Number(state.kubernetes.minor.slice(2)),
  };
  if (state.live) {
    const m = await import("../live");
    const lists = state.collected.lists;
    const backends = await m.readBackends(
      state.live,
      [...lists.mutatingWebhookConfigurations, ...lists.validatingWebhookConfigurations],
      notices,
    );
    input = {
      ...input,
      snapshot: { ...input.snapshot, discovery: state.discovery },
      ...backends,
      // --kubernetes-version wins over the cluster's /version.
      ...(cmd.kubernetesVersion ? { serverMinor: input.serverMinor } : {}),
    };
  } else {
    // Services, Pods and workloads beside the configurations tell L1/L6 where backends run.
    const b = state.collected.backends;
    input = { ...input, services: b.services, pods: b.pods, workloads: b.workloads };
    const inferred = serviceBackedWithout(state.collected, b.services);
    if (inferred.length > 0)
      notices.push({
        at: "lint",
        message: `L1/L6: no Service in the input for ${inferred.join(", ")}; their pods are inferred to run in their Service's namespace, with labels unknown (add the Service and its Deployment, DaemonSet, StatefulSet or Pods to decide exactly)`,
      });
    if (!state.namespacesKnown)
      notices.push({
        at: "lint",
        message:
          "no namespaces given: selector-dependent checks (L1, L2, L3, L6) assume namespaces carry only their name label (use --namespaces FILE)",
      });
  }
  const findings = lint(input, { offlineOnly: mode === "offline" });
  return lintReport(findings, {
    failOn: cmd.failOn,
    mode,
    configurations: state.collected.configurations,
    namespaces: Object.keys(state.namespaces).length,
    notices,
    kubernetes: state.kubernetes,
  });
}
