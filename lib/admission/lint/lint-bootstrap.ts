/**
 * Bootstrap and deadlock checks: L1 (self-interception), L2 (kube-system), L3 (node leases),
 * L6 (dependency cycles), L18 (namespace lifecycle).
 */
import type { CompiledWebhook } from "@/lib/admission/matching/compile";
import { createMatchContext } from "@/lib/admission/matching/match-context";
import { makeRequest, type AdmissionRequest } from "@/lib/admission/model/request";
import { labelValue } from "@/lib/admission/model/selectors";
import {
  dependencyGraph,
  metadataOnlyVerdict,
  SYSTEM_NAMESPACES,
  type Backend,
} from "@/lib/admission/lint/deadlock";
import {
  namespaceRequirementFix,
  runlevelExemptionFix,
  webhookObject,
  webhookPath,
  type LintContext,
  type LintFinding,
} from "@/lib/admission/lint/lint-types";

/** Would the hook intercept (or possibly intercept) this metadata-only request? */
function intercepts(
  ctx: LintContext,
  h: CompiledWebhook,
  r: AdmissionRequest,
): "yes" | "maybe" | "no" {
  return metadataOnlyVerdict(h, createMatchContext(r, ctx.compiled));
}

function inferenceNote(b: Backend): string {
  return b.source === "inferred"
    ? ` (This rests on an inference: the webhook's pods are taken to run in its Service's namespace ${b.namespace}, with labels unknown; give the Service and its Deployment, DaemonSet, StatefulSet or Pods to decide exactly.)`
    : "";
}

/**
 * L1 and L6 from the dependency graph: a fail-closed webhook intercepting its own backend, or a
 * cycle of any length between fail-closed webhooks' backends.
 */
export function checkDependencyLoops(ctx: LintContext): LintFinding[] {
  const graph = dependencyGraph(ctx.input, ctx.compiled);
  const byKey = new Map(graph.hooks.map((h) => [h.key, h]));
  const findings: LintFinding[] = [];
  for (const key of graph.selfLoops) {
    const node = byKey.get(key);
    const b = node?.backend;
    if (!node || !b) continue;
    const a = node.hook;
    const maybe = graph.edges.some((e) => e.from === key && e.to === key && e.verdict === "maybe");
    findings.push({
      id: "L1",
      severity: "critical",
      title: "Fail-closed webhook intercepts its own backend",
      objects: [webhookObject(a), { kind: "Namespace", name: b.namespace }],
      explanation: `${a.id.name} has failurePolicy Fail and ${maybe ? "may (depending on matchConditions) intercept" : "intercepts"} the creation of the Pods (or their controllers) in ${b.namespace} that serve it. Once all its Pods are gone, no replacement can be admitted: a permanent deadlock.${inferenceNote(b)}`,
      fix: namespaceRequirementFix(
        a,
        { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [b.namespace] },
        `exclude the backend namespace ${b.namespace}`,
      ),
    });
  }
  for (const cycle of graph.cycles) {
    const nodes = cycle.map((k) => byKey.get(k)).filter((n) => n !== undefined);
    const first = nodes[0];
    const second = nodes[1];
    if (!first || !second || !second.backend) continue;
    const names = nodes.map((n) => n.hook.id.name);
    const inferred = nodes.find((n) => n.backend?.source === "inferred")?.backend;
    findings.push({
      id: "L6",
      severity: "critical",
      title:
        nodes.length === 2
          ? "Two fail-closed webhooks intercept each other's Pods"
          : `${nodes.length} fail-closed webhooks intercept each other's Pods in a cycle`,
      objects: nodes.map((n) => webhookObject(n.hook)),
      explanation: `${[...names, names[0]].join(" → ")}: each intercepts the creation of the Pods backing the next, all with failurePolicy Fail. If their backends go down together, none can come back.${inferred ? inferenceNote(inferred) : ""}`,
      fix: namespaceRequirementFix(
        first.hook,
        {
          key: "kubernetes.io/metadata.name",
          operator: "NotIn",
          values: [second.backend.namespace],
        },
        `exclude ${second.backend.namespace}, where ${second.hook.id.name} runs, from ${first.hook.id.name}`,
      ),
    });
  }
  return findings;
}

/** L2: a fail-closed webhook intercepting kube-system (and the other bootstrap namespaces). */
export function checkSystemNamespaces(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const critical = [...SYSTEM_NAMESPACES, ...(ctx.input.criticalNamespaces ?? [])];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.failurePolicy !== "Fail") continue;
    const hit: string[] = [];
    let severe = false;
    let certain = false;
    for (const ns of critical) {
      const labels = ctx.compiled.namespaces.get(ns) ?? { "kubernetes.io/metadata.name": ns };
      const req = (group: string, resource: string, kind: string) =>
        makeRequest({
          group,
          resource,
          operation: "CREATE",
          namespace: ns,
          kind: { group, kind },
          namespaceObject: { labels },
          object: { metadata: { namespace: ns } },
        });
      const verdicts = [
        intercepts(ctx, h, req("", "pods", "Pod")),
        intercepts(ctx, h, req("coordination.k8s.io", "leases", "Lease")),
        h.match.rules.some((r) => r.scope !== "Cluster")
          ? intercepts(ctx, h, req("", "configmaps", "ConfigMap"))
          : "no",
      ];
      const [pods, leases, other] = verdicts.map((v) => v !== "no");
      if (verdicts.includes("yes")) certain = true;
      if (pods || leases || other) hit.push(ns);
      if (pods || leases) severe = true;
    }
    if (hit.length === 0) continue;
    out.push({
      id: "L2",
      severity: severe ? "critical" : "high",
      title: "Fail-closed webhook intercepts kube-system",
      objects: [webhookObject(h), ...hit.map((name) => ({ kind: "Namespace", name }))],
      explanation: `${h.id.name} (failurePolicy Fail) ${certain ? "intercepts" : "may (depending on matchConditions that read the object) intercept"} writes in ${hit.join(", ")}. Control-plane add-ons there cannot be admitted while the webhook is down.`,
      fix: systemExemptionFix(ctx, h, hit),
    });
  }
  return out;
}

/**
 * The runlevel exemption when every hit namespace is labelled runlevel 0 or 1 (so the patch alone
 * exempts them); otherwise an exclusion by name, which always does.
 */
function systemExemptionFix(ctx: LintContext, h: CompiledWebhook, hit: readonly string[]) {
  const labelled = hit.every((ns) => {
    const rl = labelValue(ctx.compiled.namespaces.get(ns), "runlevel");
    return rl === "0" || rl === "1";
  });
  if (labelled) return runlevelExemptionFix(h);
  return namespaceRequirementFix(
    h,
    { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [...hit] },
    `exclude ${hit.join(", ")} by name (or label them runlevel=0 and exclude runlevel in (0,1))`,
  );
}

/** L3: a mutating webhook on node leases in kube-node-lease. */
export function checkNodeLeases(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const ns = "kube-node-lease";
  const labels = ctx.compiled.namespaces.get(ns) ?? { "kubernetes.io/metadata.name": ns };
  for (const h of ctx.compiled.mutating) {
    const r = makeRequest({
      group: "coordination.k8s.io",
      resource: "leases",
      operation: "UPDATE",
      namespace: ns,
      kind: { group: "coordination.k8s.io", kind: "Lease" },
      namespaceObject: { labels },
      object: { metadata: { namespace: ns } },
      oldObject: { metadata: { namespace: ns } },
    });
    if (intercepts(ctx, h, r) === "no") continue;
    out.push({
      id: "L3",
      severity: "high",
      title: "Mutating webhook on node leases",
      objects: [webhookObject(h), { kind: "Namespace", name: ns }],
      explanation: `${h.id.name} mutates Lease updates in kube-node-lease; every kubelet heartbeat goes through it, and a slow or failing webhook can mark nodes NotReady and break node upgrades.`,
      fix: namespaceRequirementFix(
        h,
        { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [ns] },
        "exclude kube-node-lease",
      ),
    });
  }
  return out;
}

/** L18: fail-closed webhooks that can block namespace creation or deletion. */
export function checkNamespaceLifecycle(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.failurePolicy !== "Fail") continue;
    const nsOps = ["CREATE", "DELETE"].filter((op) =>
      h.match.rules.some(
        (r) =>
          (r.allOperations || r.operations.includes(op)) &&
          (r.allGroups || r.apiGroups.includes("")) &&
          r.resources.some(
            ([res, sub]) => (res === "*" || res === "namespaces") && (sub === "" || sub === "*"),
          ),
      ),
    );
    const deletes = h.match.rules.some(
      (r) => (r.allOperations || r.operations.includes("DELETE")) && r.scope !== "Cluster",
    );
    if (nsOps.length === 0 && !deletes) continue;
    out.push({
      id: "L18",
      severity: "medium",
      title: "Namespace creation or deletion can be blocked",
      objects: [webhookObject(h)],
      explanation:
        nsOps.length > 0
          ? `${h.id.name} (failurePolicy Fail) matches ${nsOps.join("/")} of namespaces; while it is down, namespaces cannot be ${nsOps.includes("CREATE") ? "created" : "deleted"}.`
          : `${h.id.name} (failurePolicy Fail) matches DELETE of namespaced objects; the namespace controller empties a terminating namespace through the API (DELETECOLLECTION, one admission call per item), so a failing webhook leaves namespaces stuck Terminating.`,
      fix: {
        description: "use failurePolicy Ignore for DELETE, or drop DELETE from the rules",
        target: webhookObject(h),
        // `add` sets the member whether or not it is present (unset means Fail in v1).
        jsonPatch: [{ op: "add", path: webhookPath(h, "failurePolicy"), value: "Ignore" }],
      },
    });
  }
  return out;
}
