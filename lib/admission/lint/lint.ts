/**
 * The admission risk linter: checks L1–L18 of reference §7.2, and L19 (a hook or policy named
 * like the apiserver's own audit records). `offline` checks need only the configurations (and
 * namespaces where given), so the CLI can run them without a cluster.
 */
import { compileSnapshot } from "@/lib/admission/matching/compile";
import type { LintContext, LintFinding, LintId, LintInput } from "@/lib/admission/lint/lint-types";
import {
  checkDependencyLoops,
  checkNamespaceLifecycle,
  checkNodeLeases,
  checkSystemNamespaces,
} from "@/lib/admission/lint/lint-bootstrap";
import {
  checkExactVersions,
  checkNearMisses,
  checkObjectSelectorEnforcement,
  checkRecoveryPath,
  checkVirtualResources,
  checkWildcards,
} from "@/lib/admission/lint/lint-scope";
import { checkBackends, checkCaBundles } from "@/lib/admission/lint/lint-backend";
import {
  checkFailOpen,
  checkNameOrder,
  checkReservedAnnotationNames,
  checkReinvocation,
  checkSideEffects,
  checkTimeouts,
} from "@/lib/admission/lint/lint-operations";

/** What each check needs. */
export interface LintCheck {
  readonly ids: readonly LintId[];
  /** Decidable from configurations alone (namespaces/discovery improve some). */
  readonly offline: boolean;
  readonly needs: string;
  readonly run: (ctx: LintContext) => LintFinding[];
}

/** The catalogue, in id order. */
export const LINT_CHECKS: readonly LintCheck[] = [
  {
    ids: ["L1", "L6"],
    offline: true,
    needs:
      "services and pods (or workloads) backing each webhook; without them a service-backed hook's pods are inferred to run in its Service's namespace",
    run: checkDependencyLoops,
  },
  {
    ids: ["L2"],
    offline: true,
    needs: "namespace labels (defaults to the name label only)",
    run: checkSystemNamespaces,
  },
  { ids: ["L3"], offline: true, needs: "configurations", run: checkNodeLeases },
  {
    ids: ["L4"],
    offline: true,
    needs: "configurations and server version",
    run: checkVirtualResources,
  },
  { ids: ["L5"], offline: true, needs: "configurations", run: checkWildcards },
  {
    ids: ["L7"],
    offline: false,
    needs: "services and endpoint slices (url checks work offline)",
    run: checkBackends,
  },
  {
    ids: ["L8"],
    offline: true,
    needs: "configurations (serving-certificate checks need the backend)",
    run: checkCaBundles,
  },
  { ids: ["L9"], offline: true, needs: "configurations; p99 needs metrics", run: checkTimeouts },
  { ids: ["L10"], offline: true, needs: "configurations", run: checkSideEffects },
  { ids: ["L11"], offline: true, needs: "configurations", run: checkObjectSelectorEnforcement },
  { ids: ["L12"], offline: false, needs: "discovery", run: checkExactVersions },
  { ids: ["L13"], offline: true, needs: "configurations", run: checkReinvocation },
  { ids: ["L14"], offline: false, needs: "metrics", run: checkFailOpen },
  { ids: ["L15"], offline: true, needs: "configurations", run: checkNameOrder },
  { ids: ["L16"], offline: true, needs: "policies and bindings", run: checkRecoveryPath },
  { ids: ["L17"], offline: true, needs: "configurations", run: checkNearMisses },
  { ids: ["L18"], offline: true, needs: "configurations", run: checkNamespaceLifecycle },
  {
    ids: ["L19"],
    offline: true,
    needs: "configurations and policies",
    run: checkReservedAnnotationNames,
  },
];

const ORDER: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** Runs the checks (all, or only offline ones); findings sorted by severity, then id. */
export function lint(input: LintInput, options: { offlineOnly?: boolean } = {}): LintFinding[] {
  const ctx: LintContext = { input, compiled: compileSnapshot(input.snapshot) };
  const out: LintFinding[] = [];
  for (const check of LINT_CHECKS) {
    if (options.offlineOnly && !check.offline) continue;
    out.push(...check.run(ctx));
  }
  return out.sort(
    (a, b) =>
      (ORDER[a.severity] ?? 9) - (ORDER[b.severity] ?? 9) ||
      Number(a.id.slice(1)) - Number(b.id.slice(1)),
  );
}
