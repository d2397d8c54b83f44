/**
 * Deterministic benchmark data: namespaces with realistic label sets (runlevel, team, env,
 * the automatic kubernetes.io/metadata.name) and webhooks with varied rules and selectors.
 */
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
  V1LabelSelector,
} from "@/lib/k8s/types";
import type { AdmissionSnapshot, DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { AdmissionRequest } from "@/lib/admission/model/request";
import { makeRequest } from "@/lib/admission/model/request";

/** mulberry32: a small seeded PRNG so every run sees the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;

const TEAMS = ["payments", "search", "infra", "ml", "web", "data", "platform", "security"];
const ENVS = ["prod", "staging", "dev"];
const RESOURCES: ReadonlyArray<[string, string, string, boolean]> = [
  ["", "pods", "Pod", true],
  ["", "configmaps", "ConfigMap", true],
  ["", "secrets", "Secret", true],
  ["", "services", "Service", true],
  ["", "namespaces", "Namespace", false],
  ["", "nodes", "Node", false],
  ["apps", "deployments", "Deployment", true],
  ["apps", "statefulsets", "StatefulSet", true],
  ["apps", "daemonsets", "DaemonSet", true],
  ["batch", "jobs", "Job", true],
  ["networking.k8s.io", "ingresses", "Ingress", true],
  ["coordination.k8s.io", "leases", "Lease", true],
  ["rbac.authorization.k8s.io", "clusterroles", "ClusterRole", false],
];

/** Namespace name → labels. */
export function makeNamespaces(count: number, seed = 1): Record<string, Record<string, string>> {
  const rnd = prng(seed);
  const out: Record<string, Record<string, string>> = {};
  for (const sys of ["kube-system", "kube-public", "kube-node-lease", "default"]) {
    out[sys] = {
      "kubernetes.io/metadata.name": sys,
      ...(sys.startsWith("kube-") ? { runlevel: "0" } : {}),
    };
  }
  for (let i = out ? Object.keys(out).length : 0; i < count; i++) {
    const name = `ns-${i}`;
    const labels: Record<string, string> = { "kubernetes.io/metadata.name": name };
    const r = rnd();
    if (r < 0.02) labels["runlevel"] = "0";
    else if (r < 0.06) labels["runlevel"] = "1";
    else if (r < 0.5) labels["runlevel"] = String(2 + Math.floor(rnd() * 3));
    labels["team"] = pick(rnd, TEAMS);
    labels["env"] = pick(rnd, ENVS);
    if (rnd() < 0.3) labels["istio-injection"] = rnd() < 0.8 ? "enabled" : "disabled";
    if (rnd() < 0.1) labels["policy.example.com/exempt"] = "true";
    out[name] = labels;
  }
  return out;
}

function selector(rnd: () => number): V1LabelSelector | undefined {
  const r = rnd();
  if (r < 0.25) return undefined;
  if (r < 0.5)
    return { matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }] };
  if (r < 0.6) return { matchLabels: { env: pick(rnd, ENVS) } };
  if (r < 0.7)
    return {
      matchExpressions: [
        { key: "team", operator: "In", values: [pick(rnd, TEAMS), pick(rnd, TEAMS)] },
      ],
    };
  if (r < 0.8) return { matchLabels: { "istio-injection": "enabled" } };
  if (r < 0.9)
    return {
      matchExpressions: [
        { key: "policy.example.com/exempt", operator: "DoesNotExist" },
        { key: "runlevel", operator: "NotIn", values: ["0"] },
      ],
    };
  return {
    matchExpressions: [
      {
        key: "kubernetes.io/metadata.name",
        operator: "NotIn",
        values: ["kube-system", "kube-public"],
      },
    ],
  };
}

function webhook(rnd: () => number, i: number) {
  const [group, resource] = pick(rnd, RESOURCES);
  const wild = rnd() < 0.05;
  const ops = pick(rnd, [["CREATE"], ["CREATE", "UPDATE"], ["*"], ["DELETE"], ["UPDATE"]]);
  const nsSel = selector(rnd);
  const objSel = rnd() < 0.15 ? { matchLabels: { app: `app-${i % 20}` } } : undefined;
  return {
    name: `hook-${i}.example.com`,
    clientConfig: { service: { namespace: `ns-${i % 50}`, name: `svc-${i}` } },
    rules: [
      {
        operations: ops,
        apiGroups: [wild ? "*" : group],
        apiVersions: ["*"],
        resources: [wild ? "*" : rnd() < 0.2 ? `${resource}/*` : resource],
        ...(rnd() < 0.2 ? { scope: "Namespaced" } : {}),
      },
    ],
    ...(nsSel ? { namespaceSelector: nsSel } : {}),
    ...(objSel ? { objectSelector: objSel } : {}),
    ...(rnd() < 0.3 ? { failurePolicy: "Ignore" } : {}),
    ...(rnd() < 0.1
      ? {
          matchConditions: [
            { name: "not-admin", expression: "request.userInfo.username != 'admin'" },
          ],
        }
      : {}),
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 1 + Math.floor(rnd() * 10),
  };
}

/** A snapshot with `hooks` webhooks split between mutating and validating configurations. */
export function makeSnapshot(hooks: number, namespaces: number, seed = 7): AdmissionSnapshot {
  const rnd = prng(seed);
  const mutating: V1MutatingWebhookConfiguration[] = [];
  const validating: V1ValidatingWebhookConfiguration[] = [];
  for (let i = 0; i < hooks; i += 5) {
    const ws = Array.from({ length: Math.min(5, hooks - i) }, (_, k) => webhook(rnd, i + k));
    if ((i / 5) % 2 === 0) {
      mutating.push({
        metadata: { name: `cfg-${i}` },
        webhooks: ws.map((w) => ({
          ...w,
          ...(rnd() < 0.3 ? { reinvocationPolicy: "IfNeeded" } : {}),
        })),
      });
    } else validating.push({ metadata: { name: `cfg-${i}` }, webhooks: ws });
  }
  const discovery: DiscoveryResource[] = RESOURCES.map(([group, resource, kind, namespaced]) => ({
    group,
    version: "v1",
    resource,
    kind,
    namespaced,
    subresources: [{ name: "status" }],
  }));
  return {
    mutatingWebhookConfigurations: mutating,
    validatingWebhookConfigurations: validating,
    namespaces: makeNamespaces(namespaces),
    discovery,
  };
}

/** Varied requests across resources, operations and namespaces. */
export function makeRequests(count: number, namespaces: number, seed = 11): AdmissionRequest[] {
  const rnd = prng(seed);
  const out: AdmissionRequest[] = [];
  for (let i = 0; i < count; i++) {
    const [group, resource, kind, namespaced] = pick(rnd, RESOURCES);
    const operation = pick(rnd, ["CREATE", "UPDATE", "DELETE"] as const);
    const ns = namespaced
      ? rnd() < 0.05
        ? "kube-system"
        : `ns-${Math.floor(rnd() * namespaces)}`
      : undefined;
    const obj = {
      apiVersion: group === "" ? "v1" : `${group}/v1`,
      kind,
      metadata: { name: `obj-${i}`, labels: { app: `app-${i % 20}` } },
    };
    out.push(
      makeRequest({
        group,
        version: "v1",
        resource,
        kind: { group, version: "v1", kind },
        operation,
        ...(ns ? { namespace: ns } : {}),
        name: `obj-${i}`,
        object: operation === "DELETE" ? null : obj,
        oldObject: operation === "CREATE" ? null : obj,
        userInfo: {
          username:
            rnd() < 0.5 ? "admin" : "system:serviceaccount:kube-system:replicaset-controller",
          groups: ["system:authenticated"],
        },
      }),
    );
  }
  return out;
}
