/**
 * Bootstrap and deadlock checks: L1 (self-interception), L2 (kube-system), L3 (node leases),
 * L6 (dependency cycles), L18 (namespace lifecycle).
 */
import type { CompiledWebhook } from "@/lib/admission/compile";
import { createMatchContext } from "@/lib/admission/match-context";
import { matchWebhook } from "@/lib/admission/match";
import { makeRequest, type AdmissionRequest } from "@/lib/admission/request";
import type { Labels } from "@/lib/admission/selectors";
import {
  namespaceRequirementFix,
  runlevelExemptionFix,
  webhookObject,
  webhookPath,
  type LintContext,
  type LintFinding,
} from "@/lib/admission/lint-types";

const WORKLOADS: ReadonlyArray<[string, string, string]> = [
  ["", "pods", "Pod"],
  ["apps", "deployments", "Deployment"],
  ["apps", "replicasets", "ReplicaSet"],
  ["apps", "statefulsets", "StatefulSet"],
  ["apps", "daemonsets", "DaemonSet"],
  ["batch", "jobs", "Job"],
];

/** Would the hook intercept (or possibly intercept) this request? */
function intercepts(
  ctx: LintContext,
  h: CompiledWebhook,
  r: AdmissionRequest,
): "yes" | "maybe" | "no" {
  const m = matchWebhook(h, createMatchContext(r, ctx.compiled));
  return m.kind === "call" || m.kind === "fail"
    ? "yes"
    : m.kind === "indeterminate"
      ? "maybe"
      : "no";
}

function createIn(
  group: string,
  resource: string,
  kind: string,
  ns: string,
  labels: Labels,
): AdmissionRequest {
  return makeRequest({
    group,
    resource,
    operation: "CREATE",
    namespace: ns,
    kind: { group, kind },
    object: { metadata: { namespace: ns, labels } },
    userInfo: {
      username: "system:serviceaccount:kube-system:replicaset-controller",
      groups: [
        "system:serviceaccounts",
        "system:serviceaccounts:kube-system",
        "system:authenticated",
      ],
    },
  });
}

interface Backend {
  readonly hook: CompiledWebhook;
  readonly namespace: string;
  readonly podLabels: readonly Labels[];
}

/** The namespace and pod label sets behind each service-backed webhook. */
function backends(ctx: LintContext): Backend[] {
  const out: Backend[] = [];
  const raw = [
    ...(ctx.input.snapshot.mutatingWebhookConfigurations ?? []),
    ...(ctx.input.snapshot.validatingWebhookConfigurations ?? []),
  ];
  const svcOf = new Map<string, { namespace: string; name: string }>();
  for (const cfg of raw) {
    for (const w of cfg.webhooks ?? []) {
      const s = w.clientConfig.service;
      if (s)
        svcOf.set(`${cfg.metadata?.name ?? ""}/${w.name}`, {
          namespace: s.namespace,
          name: s.name,
        });
    }
  }
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    const svc = svcOf.get(`${h.id.configuration}/${h.id.name}`);
    if (!svc) continue;
    const service = ctx.input.services?.find(
      (s) => s.metadata?.namespace === svc.namespace && s.metadata?.name === svc.name,
    );
    const selector = service?.spec?.selector;
    const pods = (ctx.input.pods ?? []).filter((p) => {
      if (p.metadata?.namespace !== svc.namespace || !selector) return false;
      const labels = p.metadata?.labels ?? {};
      return Object.entries(selector).every(([k, v]) => labels[k] === v);
    });
    const podLabels =
      pods.length > 0 ? pods.map((p) => p.metadata?.labels ?? {}) : selector ? [selector] : [{}];
    out.push({ hook: h, namespace: svc.namespace, podLabels });
  }
  return out;
}

/** L1 and L6: a fail-closed webhook intercepting its own backend, or a cycle between backends. */
export function checkDependencyLoops(ctx: LintContext): LintFinding[] {
  const bs = backends(ctx);
  const findings: LintFinding[] = [];
  const edges = new Map<string, string[]>();
  for (const a of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (a.failurePolicy !== "Fail") continue;
    for (const b of bs) {
      let verdict: "yes" | "maybe" | "no" = "no";
      for (const [group, resource, kind] of WORKLOADS) {
        for (const labels of b.podLabels) {
          const v = intercepts(ctx, a, createIn(group, resource, kind, b.namespace, labels));
          if (v === "yes") verdict = "yes";
          else if (v === "maybe" && verdict === "no") verdict = "maybe";
        }
      }
      if (verdict === "no") continue;
      if (a === b.hook) {
        findings.push({
          id: "L1",
          severity: "critical",
          title: "Fail-closed webhook intercepts its own backend",
          objects: [webhookObject(a), { kind: "Namespace", name: b.namespace }],
          explanation: `${a.id.name} has failurePolicy Fail and ${verdict === "maybe" ? "may (depending on matchConditions) " : ""}intercept the creation of the Pods (or their controllers) in ${b.namespace} that serve it. Once all its Pods are gone, no replacement can be admitted: a permanent deadlock.`,
          fix: namespaceRequirementFix(
            a,
            { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [b.namespace] },
            `exclude the backend namespace ${b.namespace}`,
          ),
        });
      } else {
        const list = edges.get(a.id.key) ?? [];
        list.push(b.hook.id.key);
        edges.set(a.id.key, list);
      }
    }
  }
  const seen = new Set<string>();
  for (const [a, targets] of edges) {
    for (const b of targets) {
      if (!(edges.get(b) ?? []).includes(a)) continue;
      const key = [a, b].sort().join(" ↔ ");
      if (seen.has(key)) continue;
      seen.add(key);
      const ha = ctx.compiled.mutating.concat(ctx.compiled.validating).find((h) => h.id.key === a);
      const hb = ctx.compiled.mutating.concat(ctx.compiled.validating).find((h) => h.id.key === b);
      if (!ha || !hb) continue;
      findings.push({
        id: "L6",
        severity: "critical",
        title: "Two fail-closed webhooks intercept each other's Pods",
        objects: [webhookObject(ha), webhookObject(hb)],
        explanation: `${ha.id.name} intercepts the Pods backing ${hb.id.name} and the reverse, both with failurePolicy Fail. If both backends go down, neither can come back.`,
        fix: runlevelExemptionFix(ha),
      });
    }
  }
  return findings;
}

const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease"];

/** L2: a fail-closed webhook intercepting kube-system (and the other bootstrap namespaces). */
export function checkSystemNamespaces(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const critical = [...SYSTEM_NAMESPACES, ...(ctx.input.criticalNamespaces ?? [])];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    if (h.failurePolicy !== "Fail") continue;
    const hit: string[] = [];
    let severe = false;
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
      const pods = intercepts(ctx, h, req("", "pods", "Pod")) !== "no";
      const leases = intercepts(ctx, h, req("coordination.k8s.io", "leases", "Lease")) !== "no";
      const other =
        h.match.rules.some((r) => r.scope !== "Cluster") &&
        intercepts(ctx, h, req("", "configmaps", "ConfigMap")) !== "no";
      if (pods || leases || other) hit.push(ns);
      if (pods || leases) severe = true;
    }
    if (hit.length === 0) continue;
    out.push({
      id: "L2",
      severity: severe ? "critical" : "high",
      title: "Fail-closed webhook intercepts kube-system",
      objects: [webhookObject(h), ...hit.map((name) => ({ kind: "Namespace", name }))],
      explanation: `${h.id.name} (failurePolicy Fail) intercepts writes in ${hit.join(", ")}. Control-plane add-ons there cannot be admitted while the webhook is down.`,
      fix: runlevelExemptionFix(h),
    });
  }
  return out;
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
        jsonPatch: [{ op: "replace", path: webhookPath(h, "failurePolicy"), value: "Ignore" }],
      },
    });
  }
  return out;
}
