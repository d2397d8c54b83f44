/**
 * What the randomized matching oracles share: a seeded random source, three namespaces with
 * fixed objects to update, delete, scale and patch the status of, random selectors and
 * matchConditions to give hooks and policies, and random dry-run requests (creates, creates with
 * generateName, updates, deletes, deployments/scale, services/status, namespaces, pods), each
 * with the AdmissionRequest a prediction is asked about.
 */
import type { RecordedCall } from "../../cluster/harness/webhook-server";
import type {
  AdmissionRequest,
  JsonObject,
  RequestUserInfo,
} from "../../lib/admission/model/request";

/** The seeds an oracle runs: PORTCULLIS_ORACLE_SEED alone when set, else its fixed ones. */
export function oracleSeeds(fixed: number[]): number[] {
  const one = process.env.PORTCULLIS_ORACLE_SEED;
  return one ? [Number(one)] : fixed;
}

/**
 * A seeded linear congruential source (modulus 2^31, full period): the same seed draws the same
 * hooks and requests. The product is taken with Math.imul: as a plain multiplication it exceeds
 * 2^53 and loses its low bits, and every seed fell into one cycle of 10,466 states within a few
 * thousand draws, so different seeds drew the same cases.
 */
export class Rand {
  private state: number;
  constructor(seed: number) {
    this.state = seed & 0x7fffffff;
  }
  /** In [0, 1). */
  next(): number {
    this.state = (Math.imul(this.state, 1103515245) + 12345) & 0x7fffffff;
    return this.state / 0x80000000;
  }
  pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.next() * a.length)] as T;
  }
  /** One to `max` draws from `a`, without repeats. */
  some<T>(a: readonly T[], max = 2): T[] {
    return [
      ...new Set(Array.from({ length: 1 + Math.floor(this.next() * max) }, () => this.pick(a))),
    ];
  }
}

const NAMESPACES: Record<string, Record<string, string>> = {
  a: { team: "a", env: "prod" },
  b: { env: "dev" },
  c: {},
};
const OBJECT_LABELS: Array<Record<string, string>> = [
  {},
  { app: "x" },
  { app: "y", tier: "z" },
  { tier: "z" },
];

export type Request = Omit<AdmissionRequest, "namespaceObject" | "userInfo" | "dryRun">;
export interface Action {
  label: string;
  method: "POST" | "PUT" | "DELETE";
  path: string;
  body?: JsonObject;
  request: Request;
}

type KubeOk = (method: string, path: string, body?: unknown) => Promise<JsonObject>;

export const deployment = (name: string, labels: Record<string, string>) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels },
  spec: {
    replicas: 1,
    selector: { matchLabels: { run: "f" } },
    template: {
      metadata: { labels: { run: "f" } },
      spec: { containers: [{ name: "c", image: "registry.invalid/none:1" }] },
    },
  },
});

const core = (resource: string, kind: string, subresource = "") => ({
  group: "",
  version: "v1",
  resource,
  subresource,
  kind: { group: "", version: "v1", kind },
});

/** Random requests in the namespaces of one run (`id` prefixes every name). */
export class RandomRequests {
  constructor(
    private readonly rand: Rand,
    readonly id: string,
    private readonly kubeOk: KubeOk,
  ) {}

  nsName(k: string): string {
    return `${this.id}-${k}`;
  }

  /** Namespace or object selectors: none, empty, and one of each kind of term. */
  selectors(): Array<JsonObject | undefined> {
    return [
      undefined,
      {},
      { matchLabels: { app: "x" } },
      { matchLabels: { team: "a" } },
      { matchExpressions: [{ key: "env", operator: "In", values: ["prod"] }] },
      { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] },
      { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] },
      { matchExpressions: [{ key: "app", operator: "Exists" }] },
      {
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "In", values: [this.nsName("b")] },
        ],
      },
    ];
  }

  /**
   * One or two random rules the apiserver accepts (operations, groups, versions, resources and
   * subresources with wildcards, scope; a wildcard stands alone in its list).
   */
  rules(): Array<Record<string, unknown>> {
    return Array.from({ length: 1 + Math.floor(this.rand.next() * 2) }, () => {
      const r: Record<string, unknown> = {
        operations:
          this.rand.next() < 0.25 ? ["*"] : this.rand.some(["CREATE", "UPDATE", "DELETE"]),
        apiGroups: this.rand.next() < 0.3 ? ["*"] : this.rand.some(["", "apps", "autoscaling"]),
        apiVersions: this.rand.next() < 0.4 ? ["*"] : this.rand.some(["v1", "v1beta1"]),
        resources:
          this.rand.next() < 0.3
            ? [this.rand.pick(["*", "*/*", "*/scale", "*/status"])]
            : this.rand.some(
                [
                  "configmaps",
                  "secrets",
                  "services",
                  "services/status",
                  "deployments",
                  "deployments/scale",
                  "namespaces",
                  "pods",
                  "pods/status",
                  "namespaces/status",
                ],
                3,
              ),
      };
      const scope = this.rand.pick([undefined, undefined, "Namespaced", "Cluster", "*"]);
      if (scope) r.scope = scope;
      return r;
    });
  }

  /** matchConditions expressions (undefined: none). */
  conditions(): Array<string | undefined> {
    return [
      undefined,
      "oldObject != null && has(oldObject.metadata.labels)",
      "object == null || object.metadata.?labels.orValue({}).size() > 0",
      `request.namespace.startsWith('${this.id}')`,
      "request.kind.kind != 'Scale'",
      "has(request.name)",
      "request.subResource == ''",
      "object.metadata.name.startsWith('k')",
      "request.operation != 'DELETE'",
      "has(object.metadata.labels) && 'app' in object.metadata.labels",
      "object.metadata.name.matches('(?i)^K')",
    ];
  }

  /**
   * The namespaces (with `extraLabels` beside their own) and the objects updates, deletes,
   * scales and status updates start from: a ConfigMap, a Service and a Deployment named kfixed.
   */
  async createNamespaces(extraLabels: Record<string, string> = {}): Promise<void> {
    for (const [k, labels] of Object.entries(NAMESPACES)) {
      const ns = this.nsName(k);
      await this.kubeOk("POST", "/api/v1/namespaces", {
        metadata: { name: ns, labels: { ...labels, ...extraLabels } },
      });
      await this.kubeOk("POST", `/api/v1/namespaces/${ns}/configmaps`, {
        metadata: { name: "kfixed", labels: { app: "x" } },
        data: { a: "1" },
      });
      await this.kubeOk("POST", `/api/v1/namespaces/${ns}/services`, {
        metadata: { name: "kfixed", labels: { tier: "z" } },
        spec: { ports: [{ port: 80 }] },
      });
      await this.kubeOk(
        "POST",
        `/apis/apps/v1/namespaces/${ns}/deployments`,
        deployment("kfixed", { app: "y" }),
      );
    }
  }

  /**
   * The request a prediction is asked about: a dry run by `userInfo`, with its namespace's labels
   * as stored (a Namespace request's own come from its object).
   */
  async admissionRequest(r: Request, userInfo: RequestUserInfo): Promise<AdmissionRequest> {
    const labels =
      r.resource === "namespaces"
        ? undefined
        : ((await this.kubeOk("GET", `/api/v1/namespaces/${r.namespace}`)).metadata as JsonObject)
            .labels;
    return {
      ...r,
      dryRun: true,
      userInfo,
      ...(labels ? { namespaceObject: { labels: labels as Record<string, string> } } : {}),
    };
  }

  /** The namespaces' deletion (the apiserver removes what is in them). */
  async deleteNamespaces(kube: (method: string, path: string) => Promise<unknown>): Promise<void> {
    for (const k of Object.keys(NAMESPACES))
      await kube("DELETE", `/api/v1/namespaces/${this.nsName(k)}`);
  }

  /** One random request (reading the live objects an update or delete starts from). */
  async action(i: number): Promise<Action> {
    const ns = this.nsName(this.rand.pick(Object.keys(NAMESPACES)));
    const labels = this.rand.pick(OBJECT_LABELS);
    const name = `${this.rand.pick(["k", "o"])}${i}`;
    const kind = this.rand.pick([
      "configmap",
      "secret",
      "service",
      "deployment",
      "namespace",
      "pod",
      "generated",
      "update",
      "delete",
      "scale",
      "status",
      "namespace-update",
    ]);
    const create = (resource: string, k: string, extra: JsonObject = {}): Action => {
      const body = {
        apiVersion: "v1",
        kind: k,
        metadata: { name, namespace: ns, labels },
        ...extra,
      };
      return {
        label: `create ${resource} ${ns}/${name}`,
        method: "POST",
        path: `/api/v1/namespaces/${ns}/${resource}`,
        body,
        request: { ...core(resource, k), operation: "CREATE", namespace: ns, name, object: body },
      };
    };
    switch (kind) {
      case "configmap":
        return create("configmaps", "ConfigMap");
      case "secret":
        return create("secrets", "Secret");
      case "service":
        return create("services", "Service", { spec: { ports: [{ port: 80 }] } });
      case "pod":
        return create("pods", "Pod", {
          spec: { containers: [{ name: "c", image: "registry.invalid/none:1" }] },
        });
      case "deployment": {
        const body = { ...deployment(name, labels), metadata: { name, namespace: ns, labels } };
        return {
          label: `create deployment ${ns}/${name}`,
          method: "POST",
          path: `/apis/apps/v1/namespaces/${ns}/deployments`,
          body,
          request: {
            group: "apps",
            version: "v1",
            resource: "deployments",
            subresource: "",
            kind: { group: "apps", version: "v1", kind: "Deployment" },
            operation: "CREATE",
            namespace: ns,
            name,
            object: body,
          },
        };
      }
      case "namespace": {
        const n = `${this.id}-n${i}`;
        const body = { apiVersion: "v1", kind: "Namespace", metadata: { name: n, labels } };
        return {
          label: `create namespace ${n}`,
          method: "POST",
          path: "/api/v1/namespaces",
          body,
          request: {
            ...core("namespaces", "Namespace"),
            operation: "CREATE",
            namespace: n,
            name: n,
            object: body,
          },
        };
      }
      case "generated": {
        const body = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { generateName: "g-", namespace: ns, labels },
        };
        return {
          label: `create configmap ${ns}/g-…`,
          method: "POST",
          path: `/api/v1/namespaces/${ns}/configmaps`,
          body,
          request: {
            ...core("configmaps", "ConfigMap"),
            operation: "CREATE",
            namespace: ns,
            name: "",
            object: body,
          },
        };
      }
      case "update": {
        const p = `/api/v1/namespaces/${ns}/configmaps/kfixed`;
        const old = await this.kubeOk("GET", p);
        const body = {
          ...old,
          metadata: { ...(old.metadata as JsonObject), labels },
          data: { a: String(i) },
        };
        return {
          label: `update configmap ${ns}/kfixed → ${JSON.stringify(labels)}`,
          method: "PUT",
          path: p,
          body,
          request: {
            ...core("configmaps", "ConfigMap"),
            operation: "UPDATE",
            namespace: ns,
            name: "kfixed",
            object: body,
            oldObject: old,
          },
        };
      }
      case "delete": {
        const p = `/api/v1/namespaces/${ns}/configmaps/kfixed`;
        const old = await this.kubeOk("GET", p);
        return {
          label: `delete configmap ${ns}/kfixed`,
          method: "DELETE",
          path: p,
          request: {
            ...core("configmaps", "ConfigMap"),
            operation: "DELETE",
            namespace: ns,
            name: "kfixed",
            object: null,
            oldObject: old,
          },
        };
      }
      case "scale": {
        const p = `/apis/apps/v1/namespaces/${ns}/deployments/kfixed/scale`;
        const old = await this.kubeOk("GET", p);
        const { status: _status, ...rest } = old;
        const meta = { ...(old.metadata as JsonObject) };
        delete meta.resourceVersion;
        const body = { ...rest, metadata: meta, spec: { replicas: 3 } };
        return {
          label: `update deployments/scale ${ns}/kfixed`,
          method: "PUT",
          path: p,
          body,
          request: {
            group: "apps",
            version: "v1",
            resource: "deployments",
            subresource: "scale",
            kind: { group: "autoscaling", version: "v1", kind: "Scale" },
            operation: "UPDATE",
            namespace: ns,
            name: "kfixed",
            object: body,
            oldObject: old,
          },
        };
      }
      case "status": {
        const old = await this.kubeOk("GET", `/api/v1/namespaces/${ns}/services/kfixed`);
        const body = { ...old, status: { loadBalancer: {} } };
        return {
          label: `update services/status ${ns}/kfixed`,
          method: "PUT",
          path: `/api/v1/namespaces/${ns}/services/kfixed/status`,
          body,
          request: {
            ...core("services", "Service", "status"),
            operation: "UPDATE",
            namespace: ns,
            name: "kfixed",
            object: body,
            oldObject: old,
          },
        };
      }
      default: {
        const old = await this.kubeOk("GET", `/api/v1/namespaces/${ns}`);
        const meta = old.metadata as JsonObject & { labels?: Record<string, string> };
        const body = {
          ...old,
          metadata: { ...meta, labels: { ...meta.labels, extra: String(i) } },
        };
        return {
          label: `update namespace ${ns}`,
          method: "PUT",
          path: `/api/v1/namespaces/${ns}`,
          body,
          request: {
            ...core("namespaces", "Namespace"),
            operation: "UPDATE",
            namespace: ns,
            name: ns,
            object: body,
            oldObject: old,
          },
        };
      }
    }
  }
}

/** Calls made for this request: controllers (namespace deletion, ReplicaSets) admit theirs too. */
export function belongsTo(c: RecordedCall, r: Request): boolean {
  const q = c.request;
  return (
    q.resource.resource === r.resource &&
    q.operation === r.operation &&
    (r.resource === "namespaces" || (q.namespace ?? "") === (r.namespace ?? "")) &&
    (!r.name || q.name === r.name)
  );
}
