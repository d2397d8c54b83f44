/**
 * Matching oracle: recorder webhooks with varied rules, scopes, selectors, matchPolicies,
 * matchConditions and reinvocation policies are registered with the real kube-apiserver; over
 * 500 varied requests are sent; for each, the hooks the apiserver really called (recorders) and
 * the mutation rounds it reports (audit annotations) must equal what predict + order say.
 * Mutating calls are compared as an ordered sequence with rounds; validating calls as a set.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  auditLogFiles,
  readStack,
  stackMinor,
  type StackInfo,
} from "../../../cluster/harness/stack";
import {
  startWebhookServer,
  type RecordedCall,
  type WebhookServer,
} from "../../../cluster/harness/webhook-server";
import { httpsRequest, type HttpsJsonResponse } from "../../../cluster/https-json";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import {
  annotationPatch,
  mutatingRounds,
  predictedValidating,
} from "../../../test/oracle/admission-calls";
import type { AdmissionRequest, JsonObject } from "@/lib/admission/model/request";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { parseTestFile, serializeTestFile, type TestCase } from "@/lib/admission/testing/format";
import { TestRunner } from "@/lib/admission/testing/runner";
import type { AdmissionOperation } from "@/lib/k8s/types";

/** The stack runs a minor before 1.37 (npm run test:versions). */
const OLDER_THAN_137 = Number(stackMinor().slice(2)) < 37;
const id = `mo${Date.now().toString(36)}`;
const SUFFIX = `.${id}.portcullis.test`;
/** A custom resource whose v1 serves status and whose v2 serves no subresources. */
const CRD_GROUP = `${id}.portcullis.test`;
const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/oraclewidgets.${CRD_GROUP}`;
const ANNOTATION_PREFIX = "portcullis.test/mutated-";
const USER = { username: "admin", groups: ["system:masters", "system:authenticated"] };

let stack: StackInfo;
let ca: Buffer;
let hooks: WebhookServer;
let compiled: CompiledSnapshot;
let liveSnapshot: AdmissionSnapshot;

function kube(method: string, p: string, body?: unknown): Promise<HttpsJsonResponse> {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

async function kubeOk<T>(method: string, p: string, body?: unknown): Promise<T> {
  const res = await kube(method, p, body);
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${method} ${p}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as T;
}

// ── the hooks ────────────────────────────────────────────────────────────────────────────────

type Phase = "mutating" | "validating";
interface HookDef {
  config: string;
  phase: Phase;
  short: string;
  patch: boolean;
  spec: Record<string, unknown>;
}

const rule = (
  operations: string[],
  apiGroups: string[],
  apiVersions: string[],
  resources: string[],
  scope?: string,
) => ({
  operations,
  apiGroups,
  apiVersions,
  resources,
  ...(scope ? { scope } : {}),
});

/** Configuration names chosen so byte-wise order differs from naive orders ("-" < "." < "0"). */
const HOOKS: HookDef[] = [
  // mut-a (first)
  {
    config: "mut-a",
    phase: "mutating",
    short: "ma1",
    patch: true,
    spec: {
      rules: [rule(["CREATE"], [""], ["v1"], ["configmaps", "secrets"])],
      matchConditions: [
        { name: "keep-prefix", expression: "object.metadata.name.startsWith('keep')" },
      ],
      reinvocationPolicy: "Never",
    },
  },
  {
    config: "mut-a",
    phase: "mutating",
    short: "ma2",
    patch: true,
    spec: {
      rules: [rule(["*"], ["*"], ["*"], ["*/*"], "Cluster")],
      reinvocationPolicy: "IfNeeded",
    },
  },
  {
    config: "mut-a",
    phase: "mutating",
    short: "ma3",
    patch: true,
    spec: {
      rules: [rule(["UPDATE"], ["apps"], ["v1"], ["deployments/scale"])],
      reinvocationPolicy: "IfNeeded",
    },
  },
  // mut-a-z sorts before mut-a.z ("-" is 0x2d, "." is 0x2e)
  {
    config: "mut-a.z",
    phase: "mutating",
    short: "maz1",
    patch: false,
    spec: {
      rules: [rule(["DELETE"], [""], ["v1"], ["configmaps"])],
      namespaceSelector: { matchExpressions: [{ key: "team", operator: "Exists" }] },
      reinvocationPolicy: "IfNeeded",
    },
  },
  {
    config: "mut-a.z",
    phase: "mutating",
    short: "maz2",
    patch: true,
    spec: {
      rules: [rule(["CREATE"], ["autoscaling"], ["v2"], ["horizontalpodautoscalers"])],
      matchPolicy: "Equivalent",
      reinvocationPolicy: "IfNeeded",
    },
  },
  {
    config: "mut-a.z",
    phase: "mutating",
    short: "maz3",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], ["autoscaling"], ["v2"], ["horizontalpodautoscalers"])],
      matchPolicy: "Exact",
    },
  },
  {
    config: "mut-a-z",
    phase: "mutating",
    short: "mdash1",
    patch: true,
    spec: {
      rules: [rule(["CREATE", "UPDATE"], [""], ["v1"], ["configmaps"], "Namespaced")],
      objectSelector: { matchExpressions: [{ key: "tier", operator: "In", values: ["z"] }] },
      reinvocationPolicy: "IfNeeded",
    },
  },
  // mut-b (last)
  {
    config: "mut-b",
    phase: "mutating",
    short: "mb1",
    patch: true,
    spec: {
      rules: [rule(["CREATE", "UPDATE"], [""], ["v1"], ["configmaps"], "Namespaced")],
      namespaceSelector: {
        matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
      },
      reinvocationPolicy: "IfNeeded",
    },
  },
  {
    config: "mut-b",
    phase: "mutating",
    short: "mb2",
    patch: false,
    spec: {
      rules: [rule(["*"], [""], ["*"], ["*"])],
      objectSelector: { matchLabels: { app: "x" } },
      matchConditions: [{ name: "admin-only", expression: "request.userInfo.username == 'admin'" }],
      reinvocationPolicy: "IfNeeded",
    },
  },
  {
    config: "mut-b",
    phase: "mutating",
    short: "mb3",
    patch: true,
    spec: {
      rules: [rule(["CREATE"], ["", "apps"], ["v1"], ["services", "deployments"])],
      reinvocationPolicy: "Never",
    },
  },
  {
    config: "mut-b",
    phase: "mutating",
    short: "mb4",
    patch: false,
    spec: {
      // A Namespace named by generateName has no name, so no label naming it, while mutating.
      rules: [rule(["CREATE"], [""], ["v1"], ["namespaces"])],
      namespaceSelector: {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "DoesNotExist" }],
      },
    },
  },
  // validating
  {
    config: "val-1",
    phase: "validating",
    short: "v1",
    patch: false,
    spec: {
      rules: [rule(["CREATE", "UPDATE", "DELETE"], [""], ["v1"], ["configmaps"])],
      objectSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["x", "y"] }] },
    },
  },
  {
    config: "val-1",
    phase: "validating",
    short: "v2",
    patch: false,
    spec: {
      rules: [rule(["CONNECT"], [""], ["v1"], ["services/proxy"])],
    },
  },
  {
    config: "val-1",
    phase: "validating",
    short: "v3",
    patch: false,
    spec: {
      rules: [rule(["*"], [""], ["v1"], ["namespaces"], "Cluster")],
      namespaceSelector: { matchLabels: { env: "prod" } },
    },
  },
  {
    config: "val-1",
    phase: "validating",
    short: "v4",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], [""], ["v1"], ["configmaps"], "Namespaced")],
      matchConditions: [
        { name: "not-dry-run", expression: "request.dryRun == false" },
        {
          name: "has-app",
          expression: "has(object.metadata.labels) && 'app' in object.metadata.labels",
        },
      ],
    },
  },
  {
    config: "val-1",
    phase: "validating",
    short: "v5",
    patch: false,
    spec: {
      rules: [rule(["UPDATE"], [""], ["v1"], ["configmaps"])],
      namespaceSelector: { matchExpressions: [{ key: "runlevel", operator: "DoesNotExist" }] },
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v6",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], ["*"], ["*"], ["*"], "Namespaced")],
      objectSelector: { matchLabels: { tier: "z" } },
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v7",
    patch: false,
    spec: {
      rules: [rule(["CREATE", "DELETE"], ["rbac.authorization.k8s.io"], ["v1"], ["clusterroles"])],
      namespaceSelector: { matchLabels: { runlevel: "0" } },
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v8",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], [""], ["v1"], ["secrets"])],
      // RE2 syntax JavaScript's RegExp cannot read (a leading flag): evaluated as cel-go does.
      matchConditions: [
        { name: "not-skip", expression: "!object.metadata.name.matches('(?i)^KEEP-SKIP$')" },
      ],
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v9",
    patch: false,
    spec: {
      rules: [rule(["UPDATE"], ["apps"], ["v1"], ["deployments/*"])],
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v10",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], ["autoscaling"], ["v1"], ["horizontalpodautoscalers"])],
      matchPolicy: "Exact",
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v11",
    patch: false,
    spec: {
      rules: [rule(["CREATE", "UPDATE", "DELETE"], ["*"], ["*"], ["*"], "Cluster")],
      objectSelector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["x"] }] },
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v12",
    patch: false,
    spec: {
      // v2 serves no status: an update of v1 widgets/status has no equivalent it names.
      rules: [rule(["UPDATE"], [CRD_GROUP], ["v2"], ["*/*"])],
      matchPolicy: "Equivalent",
    },
  },
  // Before validating, a Namespace named by generateName is labelled with the name generated.
  {
    config: "val-2",
    phase: "validating",
    short: "v13",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], [""], ["v1"], ["namespaces"])],
      namespaceSelector: {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "Exists" }],
      },
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v14",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], [""], ["v1"], ["namespaces"])],
      objectSelector: {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "Exists" }],
      },
    },
  },
  {
    config: "val-2",
    phase: "validating",
    short: "v15",
    patch: false,
    spec: {
      rules: [rule(["CREATE"], [""], ["v1"], ["namespaces"])],
      namespaceSelector: {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "DoesNotExist" }],
      },
    },
  },
];

// ── namespaces ───────────────────────────────────────────────────────────────────────────────

const NAMESPACES: Record<string, Record<string, string>> = {
  a: { runlevel: "0" },
  b: { runlevel: "1", team: "x" },
  c: { team: "y", env: "prod" },
  d: {},
  e: { env: "dev" },
  f: { runlevel: "2", env: "prod" },
  g: { team: "z", runlevel: "3" },
  h: { env: "prod", tier: "z" },
};
const nsName = (k: string) => `${id}-${k}`;

const OBJECT_LABELS: Array<Record<string, string>> = [
  {},
  { app: "x" },
  { app: "y", tier: "z" },
  { tier: "z" },
  { app: "w", team: "q" },
];

// ── requests ─────────────────────────────────────────────────────────────────────────────────

interface Action {
  label: string;
  method: "POST" | "PUT" | "DELETE" | "GET";
  path: string;
  body?: JsonObject;
  dryRun: boolean;
  request: Omit<AdmissionRequest, "namespaceObject" | "userInfo" | "dryRun">;
}

type Prep = () => Promise<Action>;

const core = (resource: string, kind: string) => ({
  group: "",
  version: "v1",
  resource,
  subresource: "",
  kind: { group: "", version: "v1", kind },
});

async function getJson(p: string): Promise<JsonObject> {
  return kubeOk<JsonObject>("GET", p);
}

/** Waits until the deployment controller has caught up, so our update does not race it. */
async function settled(p: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const d = (await getJson(p)) as {
      metadata?: { generation?: number };
      status?: { observedGeneration?: number };
    };
    if (d.status?.observedGeneration === d.metadata?.generation) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function withoutStatus(o: JsonObject): JsonObject {
  const { status: _s, ...rest } = o as JsonObject & { status?: unknown };
  return rest;
}

/** Builds the ordered list of request preparations (each reads live state it needs first). */
function plan(): Prep[] {
  const preps: Prep[] = [];
  let n = 0;
  const uniq = (prefix: string) => `${prefix}-${(n++).toString(36)}`;

  for (const nsKey of Object.keys(NAMESPACES)) {
    const ns = nsName(nsKey);
    OBJECT_LABELS.forEach((labels) => {
      for (const prefix of ["keep", "other"]) {
        for (const dryRun of [false, true]) {
          const name = uniq(prefix);
          const body = {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name, namespace: ns, labels },
            data: { a: "1" },
          };
          preps.push(async () => ({
            label: `create configmap ${ns}/${name} ${JSON.stringify(labels)}${dryRun ? " dry-run" : ""}`,
            method: "POST",
            path: `/api/v1/namespaces/${ns}/configmaps`,
            body,
            dryRun,
            request: {
              ...core("configmaps", "ConfigMap"),
              operation: "CREATE",
              namespace: ns,
              name,
              object: body,
              oldObject: null,
            },
          }));
          if (dryRun) continue;
          // Update: change data and swap labels, so object and oldObject selectors differ.
          const newLabels = labels.app === "x" ? { tier: "z" } : { ...labels, app: "x" };
          preps.push(async () => {
            const old = await getJson(`/api/v1/namespaces/${ns}/configmaps/${name}`);
            const next = {
              ...old,
              metadata: { ...(old.metadata as JsonObject), labels: newLabels },
              data: { a: "2" },
            };
            return {
              label: `update configmap ${ns}/${name} → ${JSON.stringify(newLabels)}`,
              method: "PUT",
              path: `/api/v1/namespaces/${ns}/configmaps/${name}`,
              body: next,
              dryRun: false,
              request: {
                ...core("configmaps", "ConfigMap"),
                operation: "UPDATE",
                namespace: ns,
                name,
                object: next,
                oldObject: old,
              },
            };
          });
          preps.push(async () => {
            const old = await getJson(`/api/v1/namespaces/${ns}/configmaps/${name}`);
            return {
              label: `delete configmap ${ns}/${name}`,
              method: "DELETE",
              path: `/api/v1/namespaces/${ns}/configmaps/${name}`,
              dryRun: false,
              request: {
                ...core("configmaps", "ConfigMap"),
                operation: "DELETE",
                namespace: ns,
                name,
                object: null,
                oldObject: old,
              },
            };
          });
        }
      }
    });
    OBJECT_LABELS.forEach((labels) => {
      for (const name of [uniq("keep"), uniq("other"), "keep-skip"]) {
        const body = {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name, namespace: ns, labels },
          stringData: { k: "v" },
        };
        if (name === "keep-skip" && Object.keys(labels).length > 0) continue;
        preps.push(async () => ({
          label: `create secret ${ns}/${name}`,
          method: "POST",
          path: `/api/v1/namespaces/${ns}/secrets`,
          body,
          dryRun: false,
          // The apiserver turns stringData into data before admission; selectors and our
          // matchConditions read only metadata.
          request: {
            ...core("secrets", "Secret"),
            operation: "CREATE",
            namespace: ns,
            name,
            object: body,
            oldObject: null,
          },
        }));
      }
    });
    // A Service, then CONNECT to its proxy subresource (admitted before the proxying fails).
    const svc = uniq("svc");
    const svcBody = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: svc, namespace: ns, labels: { app: "x" } },
      spec: { ports: [{ port: 80 }] },
    };
    preps.push(async () => ({
      label: `create service ${ns}/${svc}`,
      method: "POST",
      path: `/api/v1/namespaces/${ns}/services`,
      body: svcBody,
      dryRun: false,
      request: {
        ...core("services", "Service"),
        operation: "CREATE",
        namespace: ns,
        name: svc,
        object: svcBody,
        oldObject: null,
      },
    }));
    for (const sub of ["", "healthz"]) {
      preps.push(async () => ({
        label: `connect services/proxy ${ns}/${svc}/${sub}`,
        method: "GET",
        path: `/api/v1/namespaces/${ns}/services/${svc}/proxy/${sub}`,
        dryRun: false,
        request: {
          group: "",
          version: "v1",
          resource: "services",
          subresource: "proxy",
          kind: { group: "", version: "v1", kind: "ServiceProxyOptions" },
          operation: "CONNECT",
          namespace: ns,
          name: svc,
          object: { kind: "ServiceProxyOptions", apiVersion: "v1", path: `/${sub}` },
          oldObject: null,
        },
      }));
    }
    // A Deployment, then its scale subresource (kind autoscaling/v1 Scale).
    const dep = uniq("dep");
    const depBody = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: dep, namespace: ns, labels: { app: "x", tier: "z" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { run: dep } },
        template: {
          metadata: { labels: { run: dep } },
          spec: { containers: [{ name: "c", image: "registry.invalid/none:1" }] },
        },
      },
    };
    preps.push(async () => ({
      label: `create deployment ${ns}/${dep}`,
      method: "POST",
      path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      body: depBody,
      dryRun: false,
      request: {
        group: "apps",
        version: "v1",
        resource: "deployments",
        subresource: "",
        kind: { group: "apps", version: "v1", kind: "Deployment" },
        operation: "CREATE",
        namespace: ns,
        name: dep,
        object: depBody,
        oldObject: null,
      },
    }));
    for (const dryRun of [false, true]) {
      preps.push(async () => {
        await settled(`/apis/apps/v1/namespaces/${ns}/deployments/${dep}`);
        const old = await getJson(`/apis/apps/v1/namespaces/${ns}/deployments/${dep}/scale`);
        // No resourceVersion: the deployment controller keeps moving it, and a conflict would
        // make the scale handler retry (and admit) again.
        const meta = { ...(old.metadata as JsonObject) };
        delete meta.resourceVersion;
        const next = { ...old, metadata: meta, spec: { replicas: dryRun ? 5 : 2 } };
        return {
          label: `update deployments/scale ${ns}/${dep}${dryRun ? " dry-run" : ""}`,
          method: "PUT",
          path: `/apis/apps/v1/namespaces/${ns}/deployments/${dep}/scale`,
          body: withoutStatus(next),
          dryRun,
          request: {
            group: "apps",
            version: "v1",
            resource: "deployments",
            subresource: "scale",
            kind: { group: "autoscaling", version: "v1", kind: "Scale" },
            operation: "UPDATE",
            namespace: ns,
            name: dep,
            object: withoutStatus(next),
            oldObject: old,
          },
        };
      });
    }
    // HorizontalPodAutoscalers through v1 and v2: matchPolicy Equivalent vs Exact.
    for (const version of ["v1", "v2"]) {
      const hpa = uniq(`hpa-${version}`);
      const spec =
        version === "v1"
          ? {
              scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: dep },
              minReplicas: 1,
              maxReplicas: 3,
            }
          : {
              scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: dep },
              minReplicas: 1,
              maxReplicas: 3,
            };
      const body = {
        apiVersion: `autoscaling/${version}`,
        kind: "HorizontalPodAutoscaler",
        metadata: { name: hpa, namespace: ns },
        spec,
      };
      preps.push(async () => ({
        label: `create hpa ${version} ${ns}/${hpa}`,
        method: "POST",
        path: `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers`,
        body,
        dryRun: false,
        request: {
          group: "autoscaling",
          version,
          resource: "horizontalpodautoscalers",
          subresource: "",
          kind: { group: "autoscaling", version, kind: "HorizontalPodAutoscaler" },
          operation: "CREATE",
          namespace: ns,
          name: hpa,
          object: body,
          oldObject: null,
        },
      }));
    }
  }

  // Namespace objects: the namespaceSelector is matched against the Namespace's own labels.
  const nsLabelSets: Array<Record<string, string>> = [
    {},
    { env: "prod" },
    { runlevel: "0" },
    { env: "prod", app: "x" },
    { env: "dev", app: "y" },
    { team: "t" },
  ];
  nsLabelSets.forEach((labels, i) => {
    for (const dryRun of [false, true]) {
      const name = `${id}-nsx-${i}${dryRun ? "-d" : ""}`;
      const body = { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } };
      const nsReq = (
        op: AdmissionOperation,
        object: JsonObject | null,
        oldObject: JsonObject | null,
      ) => ({
        ...core("namespaces", "Namespace"),
        operation: op,
        namespace: name,
        name,
        object,
        oldObject,
      });
      preps.push(async () => ({
        label: `create namespace ${name} ${JSON.stringify(labels)}${dryRun ? " dry-run" : ""}`,
        method: "POST",
        path: "/api/v1/namespaces",
        body,
        dryRun,
        request: nsReq(
          "CREATE",
          {
            ...body,
            metadata: { name, labels: { ...labels, "kubernetes.io/metadata.name": name } },
          },
          null,
        ),
      }));
      if (dryRun) continue;
      preps.push(async () => {
        const old = await getJson(`/api/v1/namespaces/${name}`);
        const flipped = labels.env === "prod" ? { env: "dev" } : { ...labels, env: "prod" };
        const next = {
          ...old,
          metadata: {
            ...(old.metadata as JsonObject),
            labels: { ...flipped, "kubernetes.io/metadata.name": name },
          },
        };
        return {
          label: `update namespace ${name} → ${JSON.stringify(flipped)}`,
          method: "PUT",
          path: `/api/v1/namespaces/${name}`,
          body: withoutStatus(next),
          dryRun: false,
          request: nsReq("UPDATE", withoutStatus(next), old),
        };
      });
      preps.push(async () => {
        const old = await getJson(`/api/v1/namespaces/${name}`);
        return {
          label: `delete namespace ${name}`,
          method: "DELETE",
          path: `/api/v1/namespaces/${name}`,
          dryRun: false,
          request: nsReq("DELETE", null, old),
        };
      });
    }
  });

  // A Namespace named by generateName (dry run): mb4 sees it unlabelled, v13 and v14 labelled.
  const generateName = `${id}-gen-`;
  const generatedBody = { apiVersion: "v1", kind: "Namespace", metadata: { generateName } };
  preps.push(async () => ({
    label: `create namespace ${generateName}* dry-run`,
    method: "POST",
    path: "/api/v1/namespaces",
    body: generatedBody,
    dryRun: true,
    request: {
      ...core("namespaces", "Namespace"),
      operation: "CREATE",
      namespace: "",
      name: "",
      object: generatedBody,
      oldObject: null,
    },
  }));

  // A custom resource through v1, its status too: v12 names v2, which serves no status.
  const widgetNs = nsName("d");
  const widget = uniq("widget");
  const widgets = `/apis/${CRD_GROUP}/v1/namespaces/${widgetNs}/oraclewidgets`;
  const widgetReq = (subresource: string) => ({
    group: CRD_GROUP,
    version: "v1",
    resource: "oraclewidgets",
    subresource,
    kind: { group: CRD_GROUP, version: "v1", kind: "OracleWidget" },
    namespace: widgetNs,
    name: widget,
  });
  const widgetBody = {
    apiVersion: `${CRD_GROUP}/v1`,
    kind: "OracleWidget",
    metadata: { name: widget, namespace: widgetNs },
    spec: { a: 1 },
  };
  preps.push(async () => ({
    label: `create oraclewidget ${widgetNs}/${widget}`,
    method: "POST",
    path: widgets,
    body: widgetBody,
    dryRun: false,
    request: { ...widgetReq(""), operation: "CREATE", object: widgetBody, oldObject: null },
  }));
  for (const sub of ["", "status"]) {
    preps.push(async () => {
      const old = await getJson(`${widgets}/${widget}`);
      const next = { ...old, spec: { a: 2 }, status: { s: 1 } };
      return {
        label: `update oraclewidget ${widgetNs}/${widget}${sub ? `/${sub}` : ""}`,
        method: "PUT",
        path: `${widgets}/${widget}${sub ? `/${sub}` : ""}`,
        body: next,
        dryRun: false,
        request: { ...widgetReq(sub), operation: "UPDATE", object: next, oldObject: old },
      };
    });
  }

  // Cluster-scoped ClusterRoles: the namespaceSelector does not apply.
  OBJECT_LABELS.forEach((labels) => {
    for (const dryRun of [false, true]) {
      const name = uniq(`${id}-cr`);
      const body = {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name, labels },
        rules: [],
      };
      const rbac = (
        op: AdmissionOperation,
        object: JsonObject | null,
        oldObject: JsonObject | null,
      ) => ({
        group: "rbac.authorization.k8s.io",
        version: "v1",
        resource: "clusterroles",
        subresource: "",
        kind: { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole" },
        operation: op,
        name,
        object,
        oldObject,
      });
      preps.push(async () => ({
        label: `create clusterrole ${name}${dryRun ? " dry-run" : ""}`,
        method: "POST",
        path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        body,
        dryRun,
        request: rbac("CREATE", body, null),
      }));
      if (dryRun) continue;
      preps.push(async () => {
        const old = await getJson(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
        return {
          label: `delete clusterrole ${name}`,
          method: "DELETE",
          path: `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`,
          dryRun: false,
          request: rbac("DELETE", null, old),
        };
      });
    }
  });

  // Webhook configurations themselves are never sent to webhooks (ma2 and v11 would match).
  for (let i = 0; i < 4; i++) {
    const name = `${id}-inner-${i}`;
    const body = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name, labels: { app: "y" } },
      webhooks: [],
    };
    preps.push(async () => ({
      label: `create validatingwebhookconfiguration ${name}`,
      method: "POST",
      path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      body,
      dryRun: i % 2 === 1,
      request: {
        group: "admissionregistration.k8s.io",
        version: "v1",
        resource: "validatingwebhookconfigurations",
        subresource: "",
        kind: {
          group: "admissionregistration.k8s.io",
          version: "v1",
          kind: "ValidatingWebhookConfiguration",
        },
        operation: "CREATE",
        name,
        object: body,
        oldObject: null,
      },
    }));
  }
  return preps;
}

// ── setup ────────────────────────────────────────────────────────────────────────────────────

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  for (const h of HOOKS)
    hooks.program(
      h.short,
      h.patch
        ? { type: "patch", patch: annotationPatch(ANNOTATION_PREFIX + h.short) }
        : { type: "allow" },
    );
  for (const [k, labels] of Object.entries(NAMESPACES)) {
    await kubeOk("POST", "/api/v1/namespaces", { metadata: { name: nsName(k), labels } });
  }
  const schema = {
    openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  };
  await kubeOk("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    metadata: { name: `oraclewidgets.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: "Namespaced",
      names: { plural: "oraclewidgets", singular: "oraclewidget", kind: "OracleWidget" },
      versions: [
        { name: "v1", served: true, storage: true, schema, subresources: { status: {} } },
        { name: "v2", served: true, storage: false, schema },
      ],
    },
  });
  // Served once discovery lists both versions (equivalents come from discovery).
  const served = Date.now() + 30_000;
  while (
    (await kube("GET", `/apis/${CRD_GROUP}/v1`)).status !== 200 ||
    (await kube("GET", `/apis/${CRD_GROUP}/v2`)).status !== 200
  ) {
    if (Date.now() > served) throw new Error(`${CRD_GROUP} is never served`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const configs = new Map<string, HookDef[]>();
  for (const h of HOOKS)
    configs.set(`${h.phase}/${h.config}`, [...(configs.get(`${h.phase}/${h.config}`) ?? []), h]);
  for (const [key, defs] of configs) {
    const [phase, config] = key.split("/") as [Phase, string];
    await kubeOk("POST", `/apis/admissionregistration.k8s.io/v1/${phase}webhookconfigurations`, {
      metadata: { name: `${id}-${config}` },
      webhooks: defs.map((h) => ({
        name: `${h.short}${SUFFIX}`,
        clientConfig: { url: hooks.url(h.short), caBundle: hooks.caBundle },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        timeoutSeconds: 5,
        failurePolicy: "Fail",
        ...h.spec,
      })),
    });
  }
  // Predict from what the apiserver stored (defaults applied), for every configuration it holds,
  // read through the same state reader the predict page and `portcullis predict --context` use.
  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  const state = await readAdmissionState(client);
  expect(state.notices).toEqual([]);
  compiled = compileSnapshot(state.snapshot);
  liveSnapshot = state.snapshot;
  // Let the apiserver's informers see the new configurations before the first request.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const probe = await kube("POST", `/api/v1/namespaces/${nsName("d")}/configmaps?dryRun=All`, {
      metadata: { name: "probe", labels: { app: "x" } },
    });
    if (hooks.calls("v1").length > 0 && hooks.calls("mb2").length > 0) break;
    if (Date.now() > deadline) throw new Error(`hooks never called: ${probe.status} ${probe.body}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 120_000);

afterAll(async () => {
  for (const phase of ["mutating", "validating"]) {
    for (const config of new Set(HOOKS.filter((h) => h.phase === phase).map((h) => h.config))) {
      await kube(
        "DELETE",
        `/apis/admissionregistration.k8s.io/v1/${phase}webhookconfigurations/${id}-${config}`,
      );
    }
  }
  for (const k of Object.keys(NAMESPACES)) await kube("DELETE", `/api/v1/namespaces/${nsName(k)}`);
  await kube("DELETE", CRD_PATH);
  await hooks?.close();
});

// ── comparison ───────────────────────────────────────────────────────────────────────────────

const phaseOf = new Map(HOOKS.map((h) => [h.short, h.phase]));

function shortOf(webhookName: string): string | undefined {
  return webhookName.endsWith(SUFFIX) ? webhookName.slice(0, -SUFFIX.length) : undefined;
}

function belongsTo(call: RecordedCall, a: Action): boolean {
  const r = call.request;
  // A create named by generateName is validated with the name generated.
  const meta = a.request.object?.metadata as { generateName?: string } | undefined;
  const generated =
    meta?.generateName !== undefined &&
    (a.request.name ?? "") === "" &&
    (r.name ?? "").startsWith(meta.generateName);
  return (
    r.operation === a.request.operation &&
    r.resource.resource === a.request.resource &&
    (r.subResource ?? "") === a.request.subresource &&
    ((r.name ?? "") === (a.request.name ?? "") || generated) &&
    (a.request.namespace === undefined ||
      a.request.resource === "namespaces" ||
      r.namespace === a.request.namespace)
  );
}

interface Outcome {
  label: string;
  status: number;
  auditID: string;
  expectedMutating: string[];
  actualMutating: string[];
  expectedValidating: string[];
  actualValidating: string[];
  indeterminate: string[];
  mutated: string[];
  /** Admission passes the apiserver ran for this request (more than one after internal retries). */
  passes: number;
  passesDiffer: boolean;
}

function readAuditAnnotations(): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  const lines = auditLogFiles(stack).flatMap((f) => readFileSync(f, "utf8").split("\n"));
  for (const line of lines) {
    if (!line.includes(SUFFIX)) continue;
    const e = JSON.parse(line) as {
      auditID: string;
      stage: string;
      annotations?: Record<string, string>;
    };
    if (e.stage === "ResponseComplete" && e.annotations) out.set(e.auditID, e.annotations);
  }
  return out;
}

/** Mutating calls from the audit annotations, as "short@round", in (round, index) order. */
function auditMutating(annotations: Record<string, string> | undefined): string[] {
  if (!annotations) return [];
  const rows: Array<{ round: number; index: number; short: string }> = [];
  for (const [k, v] of Object.entries(annotations)) {
    const m = /^mutation\.webhook\.admission\.k8s\.io\/round_(\d+)_index_(\d+)$/.exec(k);
    if (!m) continue;
    const short = shortOf((JSON.parse(v) as { webhook: string }).webhook);
    if (short) rows.push({ round: Number(m[1]), index: Number(m[2]), short });
  }
  return rows
    .sort((a, b) => a.round - b.round || a.index - b.index)
    .map((r) => `${r.short}@${r.round}`);
}

test("matching oracle: predict + order agree with the apiserver's calls on every request", async () => {
  const preps = plan();
  expect(preps.length).toBeGreaterThanOrEqual(500);
  const outcomes: Outcome[] = [];
  // Each request also becomes an admission test case whose expectations are the calls the
  // apiserver made: the offline test runner must pass every one (below).
  const cases: TestCase[] = [];
  const hookRef = (short: string): string => {
    const h = HOOKS.find((x) => x.short === short);
    if (!h) throw new Error(`no hook ${short}`);
    const source = h.phase === "mutating" ? "Mutating" : "Validating";
    return `${source}WebhookConfiguration/${id}-${h.config}/${short}${SUFFIX}`;
  };
  for (const prep of preps) {
    const a = await prep();
    // The apiserver reads namespace labels from its informer: the containing namespace, or for a
    // Namespace DELETE (or subresource) the stored Namespace itself.
    const storedNamespace =
      a.request.namespace !== undefined &&
      (a.request.resource !== "namespaces" ||
        (a.request.operation !== "CREATE" && a.request.operation !== "UPDATE"));
    const nsLabels = storedNamespace
      ? (
          (await getJson(`/api/v1/namespaces/${a.request.namespace}`)).metadata as {
            labels?: Record<string, string>;
          }
        ).labels
      : undefined;
    const request: AdmissionRequest = {
      ...a.request,
      dryRun: a.dryRun,
      userInfo: USER,
      ...(nsLabels ? { namespaceObject: { labels: nsLabels } } : {}),
    };
    const prediction = predictCompiled(request, compiled);

    const from = hooks.nextSeq();
    const res = await kube(a.method, a.dryRun ? `${a.path}?dryRun=All` : a.path, a.body);
    const calls = hooks.calls().filter((c) => c.seq >= from && belongsTo(c, a));

    const ours = (name: string) => shortOf(name) !== undefined;
    // An update that meets a conflict inside the apiserver (e.g. a controller wrote the object
    // meanwhile) is retried there, and every attempt is admitted again: split the recorded calls
    // into admission passes (a mutating call after a validating one starts a new pass) and hold
    // each pass to the prediction.
    const passes: RecordedCall[][] = [[]];
    for (const c of calls) {
      const current = passes[passes.length - 1] as RecordedCall[];
      if (
        phaseOf.get(c.hook) === "mutating" &&
        current.some((x) => phaseOf.get(x.hook) === "validating")
      ) {
        passes.push([c]);
      } else current.push(c);
    }
    const lastPass = passes[passes.length - 1] as RecordedCall[];
    const mutatingCalls = lastPass.filter((c) => phaseOf.get(c.hook) === "mutating");
    // Which round-0 calls changed the object decides round 1; the recorders know.
    const rounds = mutatingRounds(mutatingCalls, prediction, shortOf);
    const actualMutating = rounds.actual;
    const expectedMutating = rounds.expected;
    const mutated = rounds.mutated;
    const expectedValidating = predictedValidating(prediction, shortOf);
    const actualValidating = lastPass
      .filter((c) => phaseOf.get(c.hook) === "validating")
      .map((c) => c.hook)
      .sort();
    const passShapes = new Set(passes.map((p) => p.map((c) => c.hook).join(",")));
    const round0 = actualMutating.filter((m) => m.endsWith("@0")).map((m) => m.slice(0, -2));
    const observed = new Set([...round0, ...actualValidating]);
    const r = a.request;
    cases.push({
      name: `${outcomes.length + 1}: ${a.label}`,
      source: { from: "oracle", ref: String(res.headers["audit-id"] ?? "") },
      request: {
        operation: r.operation,
        resource: `${r.group || "core"}/${r.version}/${r.resource}`,
        ...(r.subresource ? { subresource: r.subresource } : {}),
        kind: r.kind,
        ...(r.name ? { name: r.name } : {}),
        ...(r.namespace ? { namespace: r.namespace } : {}),
        ...(r.object ? { object: r.object } : {}),
        ...(r.oldObject ? { oldObject: r.oldObject } : {}),
        userInfo: { username: USER.username, groups: USER.groups },
        dryRun: a.dryRun,
        ...(nsLabels ? { namespaceLabels: nsLabels } : {}),
      },
      expect: {
        called: [...observed].map(hookRef),
        notCalled: HOOKS.filter((h) => !observed.has(h.short)).map((h) => hookRef(h.short)),
        ...(round0.length > 1 ? { order: round0.map(hookRef) } : {}),
      },
    });
    outcomes.push({
      label: a.label,
      status: res.status,
      auditID: String(res.headers["audit-id"] ?? ""),
      expectedMutating,
      actualMutating,
      expectedValidating,
      actualValidating,
      indeterminate: prediction.indeterminate
        .filter((x) => ours(x.hook.name))
        .map((x) => `${x.hook.name}: ${x.message}`),
      mutated,
      passes: passes.length,
      passesDiffer: passShapes.size > 1,
    });
  }

  // The audit log is written as requests complete: wait until it holds the annotations of every
  // request that called a mutating hook (those the comparison below reads).
  let audit = readAuditAnnotations();
  const annotated = outcomes.filter((o) => o.expectedMutating.length > 0 && o.auditID !== "");
  await expect
    .poll(
      () => {
        audit = readAuditAnnotations();
        return annotated.filter((o) => !audit.has(o.auditID)).map((o) => o.label);
      },
      { timeout: 20_000 },
    )
    .toEqual([]);
  const disagreements: Array<Outcome & { problems: string[]; auditMutating: string[] }> = [];
  for (const o of outcomes) {
    const problems: string[] = [];
    // A connect past admission to a backend that is not there: 503, or before 1.37 404 for a
    // services/proxy (the apiserver reads the Service's Endpoints object, absent here; 1.37 its
    // EndpointSlices). Admission ran either way: the calls are compared below.
    const backendMissing =
      o.status === 503 ||
      (o.status === 404 && o.label.startsWith("connect services/proxy") && OLDER_THAN_137);
    if (o.status >= 300 && !(o.label.startsWith("connect") && backendMissing))
      problems.push(`request failed: ${o.status}`);
    if (o.indeterminate.length > 0) problems.push("prediction left hooks undecided");
    if (o.passesDiffer) problems.push("retried admission passes called different hooks");
    if (JSON.stringify(o.expectedMutating) !== JSON.stringify(o.actualMutating))
      problems.push("mutating calls differ");
    if (JSON.stringify(o.expectedValidating) !== JSON.stringify(o.actualValidating))
      problems.push("validating calls differ");
    const fromAudit = auditMutating(audit.get(o.auditID));
    if (JSON.stringify(fromAudit) !== JSON.stringify(o.expectedMutating))
      problems.push("audit mutation annotations differ");
    if (problems.length > 0) disagreements.push({ ...o, problems, auditMutating: fromAudit });
  }
  const agree = outcomes.length - disagreements.length;
  const report = path.join(os.tmpdir(), "portcullis-matching-oracle.json");
  writeFileSync(report, JSON.stringify(disagreements, null, 2));
  const calledAtAll = outcomes.filter(
    (o) => o.actualMutating.length + o.actualValidating.length > 0,
  ).length;
  const withRound1 = outcomes.filter((o) => o.actualMutating.some((m) => m.endsWith("@1"))).length;
  const retried = outcomes.filter((o) => o.passes > 1).length;
  console.log(
    `matching oracle: ${agree}/${outcomes.length} agree (${calledAtAll} requests reached our hooks, ${withRound1} with a reinvocation round, ${retried} admitted more than once after internal retries; disagreements in ${report})`,
  );
  for (const d of disagreements.slice(0, 8)) console.log(JSON.stringify(d));
  expect(agree).toBe(outcomes.length);

  // The same requests as a test suite, written and read back, run offline by the test runner.
  const suite = parseTestFile(serializeTestFile(cases, { metadata: { name: "matching-oracle" } }));
  if (!suite.ok) throw new Error(JSON.stringify(suite.errors.slice(0, 3)));
  const runner = new TestRunner({ snapshot: liveSnapshot, namespacesFrom: "cluster" });
  const results = suite.cases.map((c) => runner.run(c, suite.suites[c.suite]));
  const failing = results.filter((x) => x.status !== "pass");
  console.log(
    `matching oracle as admission tests: ${results.length - failing.length}/${results.length} cases pass offline`,
  );
  for (const f of failing.slice(0, 8))
    console.log(
      JSON.stringify({
        name: f.name,
        error: f.error,
        checks: f.checks.filter((c) => c.status !== "pass"),
      }),
    );
  expect(failing.map((f) => f.name)).toEqual([]);
}, 600_000);
