/**
 * The admission risk linter: checks L1–L18 of reference §7.2, L19 (a hook or policy named
 * like the apiserver's own audit records), and L20–L24 over the policy engines' objects. `offline` checks need only the configurations (and
 * namespaces where given), so the CLI can run them without a cluster.
 */
import { compileSnapshot } from "@/lib/admission/matching/compile";
import type {
  LintContext,
  LintFinding,
  LintId,
  LintInput,
  LintObject,
  EngineLintContext,
} from "@/lib/admission/lint/lint-types";
import {
  checkDoubleEnforcement,
  checkEngineNamespace,
  checkEvaluationTimeouts,
  checkGenerationFailures,
  checkMissingBindings,
} from "@/lib/admission/lint/lint-engines";
import { recogniseOwnership, type EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import { joinEngines } from "@/lib/admission/engines/joins";
import { NO_ENGINE_SOURCES } from "@/lib/admission/engines/sources";
import type { EngineOwnership, OwnedKind } from "@/lib/admission/engines/types";
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
  {
    ids: ["L20"],
    offline: true,
    needs: "the engine's webhook and generated policies (its policies sharpen it)",
    run: checkDoubleEnforcement,
  },
  { ids: ["L21"], offline: true, needs: "the engines' policies", run: checkGenerationFailures },
  {
    ids: ["L22"],
    offline: true,
    needs: "Gatekeeper Constraints and generated policies",
    run: checkMissingBindings,
  },
  { ids: ["L23"], offline: true, needs: "Kubewarden policies", run: checkEvaluationTimeouts },
  {
    ids: ["L24"],
    offline: true,
    needs: "configurations (namespace labels sharpen it)",
    run: checkEngineNamespace,
  },
];

/** Ownership and joins of the engines' objects, for the engine checks and the findings' labels. */
function engineContext(input: LintInput): EngineLintContext {
  const sources = input.engines ?? NO_ENGINE_SOURCES;
  const ownership = recogniseOwnership(input.snapshot, sources);
  return { sources, ownership, joins: joinEngines(ownership, sources) };
}

const OWNED_KINDS = new Set<string>([
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
]);

/** The ownership of a finding's object: by hook name inside a configuration, else the object. */
function objectOwnership(
  ownership: EngineOwnershipIndex,
  byHook: ReadonlyMap<string, EngineOwnership>,
  o: LintObject,
): EngineOwnership | undefined {
  if (!OWNED_KINDS.has(o.kind)) return undefined;
  if (o.hook !== undefined) {
    const h = byHook.get(`${o.kind}/${o.name}/${o.hook}`);
    if (h) return h;
  }
  return ownership.objects[`${o.kind as OwnedKind}/${o.name}`]?.ownership;
}

/** Labels each finding's engine-owned objects (and the finding) with the engine and its policy. */
function withEngines(findings: LintFinding[], ownership: EngineOwnershipIndex): LintFinding[] {
  if (Object.keys(ownership.objects).length === 0) return findings;
  const byHook = new Map<string, EngineOwnership>();
  for (const o of Object.values(ownership.objects))
    if (o.hook !== undefined) byHook.set(`${o.kind}/${o.name}/${o.hook}`, o.ownership);
  return findings.map((f) => {
    let engine = f.engine;
    let sourcePolicy = f.sourcePolicy;
    const objects = f.objects.map((o) => {
      if (o.engine) return o;
      const own = objectOwnership(ownership, byHook, o);
      if (!own) return o;
      engine ??= own.engine;
      if (!sourcePolicy && own.source) sourcePolicy = own.source;
      return { ...o, engine: own.engine, ...(own.source ? { sourcePolicy: own.source } : {}) };
    });
    return {
      ...f,
      objects,
      ...(engine ? { engine } : {}),
      ...(sourcePolicy ? { sourcePolicy } : {}),
    };
  });
}

const ORDER: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** Runs the checks (all, or only offline ones); findings sorted by severity, then id. */
export function lint(input: LintInput, options: { offlineOnly?: boolean } = {}): LintFinding[] {
  const engines = engineContext(input);
  const ctx: LintContext = { input, compiled: compileSnapshot(input.snapshot), engines };
  const out: LintFinding[] = [];
  for (const check of LINT_CHECKS) {
    if (options.offlineOnly && !check.offline) continue;
    out.push(...check.run(ctx));
  }
  return withEngines(out, engines.ownership).sort(
    (a, b) =>
      (ORDER[a.severity] ?? 9) - (ORDER[b.severity] ?? 9) ||
      Number(a.id.slice(1)) - Number(b.id.slice(1)),
  );
}
