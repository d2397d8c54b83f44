/**
 * The demo's admission set-up, modelled on what popular projects install, seeded into a running
 * control plane and served by real harness webhook servers. One module for the demo, the
 * screenshot script and the tests.
 *
 * To extend it, add entries to the tables below (namespaces, custom resources, webhook
 * configurations with the behaviour of each hook, policies, bindings and their params): `seedDemo`
 * creates them in table order.
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createCa } from "../certs";
import { httpsRequest } from "../https-json";
import { installLegacyCrds, LEGACY_ADMISSION_GROUP } from "../legacy-crds";
import { engineApi, installEngineCrds, seedGatekeeper, seedKyverno } from "../engines";
import type { ControlPlaneInfo } from "../control-plane";
import {
  startWebhookServer,
  type AdmissionRequest,
  type Behaviour,
  type JsonPatchOp,
  type WebhookServer,
} from "./webhook-server";

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

/** Namespaces and their labels; kube-* ones exist already and get the labels patched in. */
const DEMO_NAMESPACES: Readonly<Record<string, Record<string, string>>> = {
  "kube-system": { runlevel: "0" },
  "kube-public": { runlevel: "0" },
  "kube-node-lease": { runlevel: "0" },
  "istio-system": { runlevel: "1" },
  "cert-manager": { runlevel: "1", "cert-manager.io/disable-validation": "true" },
  kyverno: { runlevel: "1" },
  "ingress-nginx": { runlevel: "2" },
  "aws-load-balancer": { runlevel: "2" },
  "policy-params": { runlevel: "2" },
  "guard-system": { guard: "enforced" },
  "shop-frontend": {
    team: "shop",
    "istio-injection": "enabled",
    "elbv2.k8s.aws/pod-readiness-gate-inject": "enabled",
  },
  "shop-payments": { team: "payments", "istio-injection": "enabled", guard: "enforced" },
  "data-jobs": { team: "data", "pod-security.kubernetes.io/enforce": "baseline" },
  sandbox: { "pod-security.kubernetes.io/warn": "restricted" },
};

/** Namespaces the traffic generator writes to (workloads of teams, never the platform's). */
export const TRAFFIC_NAMESPACES = ["shop-frontend", "shop-payments", "data-jobs", "sandbox"];

/** Custom resources the seeded hooks guard, so their rules name served resources. */
const CRDS = [
  { group: "cert-manager.io", plural: "certificates", kind: "Certificate", scope: "Namespaced" },
  { group: "cert-manager.io", plural: "issuers", kind: "Issuer", scope: "Namespaced" },
] as const;

function crd(c: (typeof CRDS)[number]): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${c.plural}.${c.group}` },
    spec: {
      group: c.group,
      scope: c.scope,
      names: { plural: c.plural, singular: c.kind.toLowerCase(), kind: c.kind },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
          },
        },
      ],
    },
  };
}

// ---- how the hooks behave ----------------------------------------------------------------------

/** Istio-like injection: marks the pod once (an idempotent patch, so reinvocation is a no-op). */
function injectSidecar(req: AdmissionRequest): JsonPatchOp[] {
  const meta = (req.object?.metadata ?? {}) as { annotations?: Record<string, string> };
  const status = '{"containers":["istio-proxy"],"initContainers":["istio-init"]}';
  if (meta.annotations?.["sidecar.istio.io/status"]) return [];
  if (!meta.annotations)
    return [
      { op: "add", path: "/metadata/annotations", value: { "sidecar.istio.io/status": status } },
    ];
  return [{ op: "add", path: "/metadata/annotations/sidecar.istio.io~1status", value: status }];
}

/** A policy engine's resource rule: pods must set resource limits on every container. */
function requireLimits(req: AdmissionRequest): Exclude<Behaviour, { type: "choose" }> {
  if (req.kind.kind !== "Pod" || req.operation !== "CREATE") return { type: "allow" };
  const spec = (req.object?.spec ?? {}) as {
    containers?: Array<{ name?: string; resources?: { limits?: Record<string, string> } }>;
  };
  const missing = (spec.containers ?? []).find((c) => !c.resources?.limits?.memory);
  if (!missing) return { type: "allow" };
  return {
    type: "deny",
    message:
      `policy require-requests-limits/validate-resources: validation error: CPU and memory resource ` +
      `limits are required (container ${missing.name ?? "?"}, rule validate-resources failed at ` +
      "path /spec/containers/0/resources/limits/memory/)",
    code: 400,
  };
}

/** Up for 45 s, then answering 503 for 15 s: a backend restarting in a crash loop. */
function flapping(): Exclude<Behaviour, { type: "choose" }> {
  return Date.now() % 60_000 < 45_000 ? { type: "allow" } : { type: "http-error", status: 503 };
}

/** Slow, near its 3 s timeout (the apiserver's latency buckets put it between 1 and 2.5 s). */
function slowNearTimeout(): Exclude<Behaviour, { type: "choose" }> {
  return { type: "sleep", seconds: 1.8 + Math.random() * 0.6 };
}

/** Each harness hook's behaviour, by the URL path name used in the configurations below. */
const DEMO_BEHAVIOURS: Readonly<Record<string, Behaviour>> = {
  "istio-inject": { type: "patch", patch: injectSidecar },
  "cert-manager-mutate": { type: "allow" },
  "cert-manager-validate": { type: "choose", choose: flapping },
  "kyverno-resource": { type: "choose", choose: requireLimits },
  "kyverno-policy": { type: "allow" },
  "elbv2-pod": { type: "allow" },
  "elbv2-service": { type: "choose", choose: slowNearTimeout },
  "ingress-nginx": { type: "allow" },
};

// ---- webhook configurations --------------------------------------------------------------------

/** How a hook reaches its harness backend: `url(name)` and the CA bundle of its server. */
interface Backends {
  main: WebhookServer;
  /** Served with a certificate whose CA expires in a few days. */
  expiring: WebhookServer;
}

const v1 = { sideEffects: "None", admissionReviewVersions: ["v1"] };
const via = (s: WebhookServer, name: string) => ({ url: s.url(name), caBundle: s.caBundle });
const notRunlevel01 = { key: "runlevel", operator: "NotIn", values: ["0", "1"] };
const rule = (
  apiGroups: string[],
  resources: string[],
  operations = ["CREATE", "UPDATE"],
  apiVersions = ["v1"],
) => ({ apiGroups, apiVersions, resources, operations, scope: "*" });

/** The MutatingWebhookConfigurations and ValidatingWebhookConfigurations the demo installs. */
function demoWebhookConfigurations(b: Backends): {
  mutating: Record<string, unknown>[];
  validating: Record<string, unknown>[];
} {
  const certManagerHook = (name: string) => ({
    name: "webhook.cert-manager.io",
    clientConfig: via(b.main, name),
    rules: [rule(["cert-manager.io", "acme.cert-manager.io"], ["*/*"])],
    namespaceSelector: {
      matchExpressions: [
        notRunlevel01,
        { key: "cert-manager.io/disable-validation", operator: "NotIn", values: ["true"] },
      ],
    },
    failurePolicy: "Fail",
    timeoutSeconds: 10,
    matchPolicy: "Equivalent",
    ...v1,
  });
  return {
    mutating: [
      {
        metadata: { name: "istio-sidecar-injector", labels: { app: "sidecar-injector" } },
        webhooks: [
          {
            name: "namespace.sidecar-injector.istio.io",
            clientConfig: via(b.main, "istio-inject"),
            rules: [rule([""], ["pods"], ["CREATE"])],
            namespaceSelector: { matchLabels: { "istio-injection": "enabled" } },
            objectSelector: {
              matchExpressions: [
                { key: "sidecar.istio.io/inject", operator: "NotIn", values: ["false"] },
              ],
            },
            reinvocationPolicy: "IfNeeded",
            failurePolicy: "Fail",
            timeoutSeconds: 10,
            ...v1,
          },
        ],
      },
      {
        metadata: { name: "cert-manager-webhook", labels: { app: "webhook" } },
        webhooks: [certManagerHook("cert-manager-mutate")],
      },
      {
        metadata: { name: "aws-load-balancer-webhook" },
        webhooks: [
          {
            name: "mpod.elbv2.k8s.aws",
            clientConfig: via(b.main, "elbv2-pod"),
            rules: [rule([""], ["pods"], ["CREATE"])],
            namespaceSelector: {
              matchExpressions: [
                {
                  key: "elbv2.k8s.aws/pod-readiness-gate-inject",
                  operator: "In",
                  values: ["enabled"],
                },
              ],
            },
            objectSelector: {
              matchExpressions: [
                {
                  key: "app.kubernetes.io/name",
                  operator: "NotIn",
                  values: ["aws-load-balancer-controller"],
                },
              ],
            },
            failurePolicy: "Fail",
            timeoutSeconds: 10,
            ...v1,
          },
          {
            name: "mservice.elbv2.k8s.aws",
            clientConfig: via(b.main, "elbv2-service"),
            rules: [rule([""], ["services"], ["CREATE"])],
            failurePolicy: "Fail",
            timeoutSeconds: 3,
            ...v1,
          },
        ],
      },
    ],
    validating: [
      {
        metadata: { name: "cert-manager-webhook", labels: { app: "webhook" } },
        webhooks: [certManagerHook("cert-manager-validate")],
      },
      {
        // The label Kyverno writes on every webhook configuration it manages
        // (pkg/controllers/webhook/utils.go objectMeta).
        metadata: {
          name: "kyverno-resource-validating-webhook-cfg",
          labels: { "webhook.kyverno.io/managed-by": "kyverno" },
        },
        webhooks: [
          {
            name: "validate.kyverno.svc-ignore",
            clientConfig: via(b.main, "kyverno-resource"),
            rules: [
              rule([""], ["pods", "configmaps", "services"]),
              rule(["apps"], ["deployments"]),
            ],
            namespaceSelector: {
              matchExpressions: [
                {
                  key: "kubernetes.io/metadata.name",
                  operator: "NotIn",
                  values: ["kube-system", "kyverno"],
                },
              ],
            },
            failurePolicy: "Ignore",
            timeoutSeconds: 10,
            ...v1,
          },
        ],
      },
      {
        metadata: {
          name: "kyverno-policy-validating-webhook-cfg",
          labels: { "webhook.kyverno.io/managed-by": "kyverno" },
        },
        webhooks: [
          {
            name: "validate-policy.kyverno.svc",
            clientConfig: via(b.main, "kyverno-policy"),
            rules: [rule(["kyverno.io"], ["clusterpolicies", "policies"])],
            failurePolicy: "Fail",
            timeoutSeconds: 10,
            ...v1,
          },
        ],
      },
      {
        metadata: { name: "ingress-nginx-admission" },
        webhooks: [
          {
            name: "validate.nginx.ingress.kubernetes.io",
            clientConfig: via(b.expiring, "ingress-nginx"),
            rules: [rule(["networking.k8s.io"], ["ingresses"])],
            failurePolicy: "Fail",
            timeoutSeconds: 10,
            matchPolicy: "Equivalent",
            ...v1,
          },
        ],
      },
      {
        // Deliberately dangerous: fail-closed on pods in the namespace its own backend runs in,
        // whose Service has no ready endpoints — its own Deployment can never create a pod.
        metadata: { name: "tenant-guard" },
        webhooks: [
          {
            name: "pods.tenant-guard.portcullis.dev",
            clientConfig: {
              service: {
                namespace: "guard-system",
                name: "tenant-guard",
                port: 443,
                path: "/validate",
              },
              caBundle: b.main.caBundle,
            },
            rules: [rule([""], ["pods"])],
            namespaceSelector: { matchLabels: { guard: "enforced" } },
            failurePolicy: "Fail",
            timeoutSeconds: 30,
            ...v1,
          },
        ],
      },
    ],
  };
}

/** Objects behind the dangerous hook: its Service and the Deployment that cannot start. */
const GUARD_BACKEND = [
  {
    path: "/api/v1/namespaces/guard-system/services",
    body: {
      metadata: { name: "tenant-guard", namespace: "guard-system" },
      spec: { selector: { app: "tenant-guard" }, ports: [{ port: 443, targetPort: 8443 }] },
    },
  },
  {
    path: "/apis/apps/v1/namespaces/guard-system/deployments",
    body: {
      metadata: {
        name: "tenant-guard",
        namespace: "guard-system",
        labels: { app: "tenant-guard" },
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "tenant-guard" } },
        template: {
          metadata: { labels: { app: "tenant-guard" } },
          spec: {
            containers: [
              {
                name: "guard",
                image: "tenant-guard:1.4.2",
                resources: { limits: { cpu: "200m", memory: "128Mi" } },
              },
            ],
          },
        },
      },
    },
  },
];

// ---- admission policies ------------------------------------------------------------------------

/** Parameter objects (ConfigMaps in policy-params) that the bindings below refer to. */
const POLICY_PARAMS = [
  {
    metadata: { name: "known-teams", namespace: "policy-params" },
    data: { teams: "shop,payments,data,platform" },
  },
  {
    metadata: { name: "owner-defaults", namespace: "policy-params" },
    data: { owner: "platform-team" },
  },
];

const configMapParams = { apiVersion: "v1", kind: "ConfigMap" };

/** Policies and bindings: [collection, object]. */
const DEMO_POLICIES: ReadonlyArray<[string, Record<string, unknown>]> = [
  [
    "validatingadmissionpolicies",
    {
      metadata: { name: "require-team-label" },
      spec: {
        paramKind: configMapParams,
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [rule(["apps"], ["deployments"])],
        },
        validations: [
          {
            expression:
              "has(object.metadata.labels) && 'team' in object.metadata.labels && " +
              "object.metadata.labels['team'] in params.data['teams'].split(',')",
            messageExpression:
              "'Deployment ' + object.metadata.name + ' needs a team label naming one of: ' + params.data['teams']",
            reason: "Forbidden",
          },
        ],
      },
    },
  ],
  [
    "validatingadmissionpolicybindings",
    {
      metadata: { name: "require-team-label-teams" },
      spec: {
        policyName: "require-team-label",
        validationActions: ["Deny"],
        paramRef: {
          name: "known-teams",
          namespace: "policy-params",
          parameterNotFoundAction: "Deny",
        },
        matchResources: {
          namespaceSelector: { matchExpressions: [{ key: "team", operator: "Exists" }] },
        },
      },
    },
  ],
  [
    "validatingadmissionpolicybindings",
    {
      metadata: { name: "require-team-label-audit" },
      spec: {
        policyName: "require-team-label",
        validationActions: ["Warn", "Audit"],
        paramRef: {
          name: "known-teams",
          namespace: "policy-params",
          parameterNotFoundAction: "Allow",
        },
        matchResources: {
          namespaceSelector: {
            matchExpressions: [{ key: "team", operator: "DoesNotExist" }, notRunlevel01],
          },
        },
      },
    },
  ],
  [
    "mutatingadmissionpolicies",
    {
      metadata: { name: "default-owner-label" },
      spec: {
        paramKind: configMapParams,
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        matchConstraints: { resourceRules: [rule([""], ["configmaps"], ["CREATE"])] },
        matchConditions: [
          {
            name: "no-owner-yet",
            expression: "!has(object.metadata.labels) || !('owner' in object.metadata.labels)",
          },
        ],
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression:
                'Object{ metadata: Object.metadata{ labels: {"owner": params.data["owner"]} } }',
            },
          },
        ],
      },
    },
  ],
  [
    "mutatingadmissionpolicybindings",
    {
      metadata: { name: "default-owner-label" },
      spec: {
        policyName: "default-owner-label",
        paramRef: {
          name: "owner-defaults",
          namespace: "policy-params",
          parameterNotFoundAction: "Allow",
        },
        matchResources: {
          namespaceSelector: { matchExpressions: [{ key: "team", operator: "Exists" }] },
        },
      },
    },
  ],
];

// ---- historical admission kinds ----------------------------------------------------------------

/**
 * What a 1.7–1.21 cluster held of the admission kinds a current apiserver no longer serves, as
 * their projects published them: InitializerConfigurations (1.7–1.13), an
 * ExternalAdmissionHookConfiguration (1.7–1.8) and v1beta1 webhook configurations (1.9–1.21).
 * The local control plane serves their historical shapes as custom resources in the project's
 * own group (cluster/legacy-crds.ts), so the dashboard's pages for them have something to show;
 * nothing calls these hooks.
 */
function demoLegacyConfigurations(
  caBundle: string,
): Array<{ version: string; plural: string; kind: string; body: Record<string, unknown> }> {
  const service = (namespace: string, name: string, path?: string) => ({
    service: { namespace, name, ...(path ? { path } : {}) },
    caBundle,
  });
  const v1beta1Rule = (apiGroups: string[], resources: string[], operations: string[]) => ({
    apiGroups,
    apiVersions: ["*"],
    resources,
    operations,
  });
  return [
    {
      version: "v1alpha1",
      plural: "initializerconfigurations",
      kind: "InitializerConfiguration",
      body: {
        // Istio 0.2's automatic sidecar injection, before it became a webhook.
        metadata: { name: "istio-sidecar" },
        initializers: [
          {
            name: "sidecar.initializer.istio.io",
            rules: [
              {
                apiGroups: ["*"],
                apiVersions: ["*"],
                resources: ["deployments", "statefulsets", "jobs", "daemonsets"],
              },
            ],
          },
        ],
      },
    },
    {
      version: "v1alpha1",
      plural: "initializerconfigurations",
      kind: "InitializerConfiguration",
      body: {
        // The documentation's example (an image policy on every new pod), then a second
        // initializer in the same configuration: pods wait on both, in this order.
        metadata: { name: "podimage-config" },
        initializers: [
          {
            name: "podimage.example.com",
            rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
          },
          {
            name: "alwayspullimages.kubernetes.io",
            rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
          },
        ],
      },
    },
    {
      version: "v1alpha1",
      plural: "initializerconfigurations",
      kind: "InitializerConfiguration",
      body: {
        // The Envoy sidecar initializer of the 1.7 initializer tutorials: sorted first by name.
        metadata: { name: "envoy" },
        initializers: [
          {
            name: "envoy.initializer.kubernetes.io",
            rules: [{ apiGroups: ["apps"], apiVersions: ["v1beta1"], resources: ["deployments"] }],
          },
        ],
      },
    },
    {
      version: "v1alpha1",
      plural: "externaladmissionhookconfigurations",
      kind: "ExternalAdmissionHookConfiguration",
      body: {
        // The 1.7 documentation's GenericAdmissionWebhook example, and a hook left on the default.
        metadata: { name: "image-policy" },
        externalAdmissionHooks: [
          {
            name: "pod-image.k8s.io",
            clientConfig: service("image-policy", "image-policy-webhook"),
            rules: [
              { apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"] },
            ],
            failurePolicy: "Ignore",
          },
          {
            name: "team-labels.example.com",
            clientConfig: service("image-policy", "team-labels"),
            rules: [
              {
                apiGroups: ["extensions"],
                apiVersions: ["v1beta1"],
                resources: ["deployments", "replicasets"],
                operations: ["CREATE", "UPDATE"],
              },
            ],
          },
        ],
      },
    },
    {
      version: "v1beta1",
      plural: "mutatingwebhookconfigurations",
      kind: "MutatingWebhookConfiguration",
      body: {
        // Linkerd 2.x's proxy injector as its v1beta1 chart installed it.
        metadata: { name: "linkerd-proxy-injector-webhook-config" },
        webhooks: [
          {
            name: "linkerd-proxy-injector.linkerd.io",
            clientConfig: service("linkerd", "linkerd-proxy-injector", "/"),
            rules: [v1beta1Rule([""], ["pods"], ["CREATE"])],
            namespaceSelector: {
              matchExpressions: [
                {
                  key: "config.linkerd.io/admission-webhooks",
                  operator: "NotIn",
                  values: ["disabled"],
                },
              ],
            },
            failurePolicy: "Ignore",
            sideEffects: "None",
          },
        ],
      },
    },
    {
      version: "v1beta1",
      plural: "mutatingwebhookconfigurations",
      kind: "MutatingWebhookConfiguration",
      body: {
        // An in-house hook written against v1beta1 that relies on every default.
        metadata: { name: "pod-defaults" },
        webhooks: [
          {
            name: "pod-defaults.platform.example.com",
            clientConfig: service("platform", "pod-defaults", "/mutate"),
            rules: [v1beta1Rule([""], ["pods"], ["CREATE", "UPDATE"])],
          },
        ],
      },
    },
    {
      version: "v1beta1",
      plural: "validatingwebhookconfigurations",
      kind: "ValidatingWebhookConfiguration",
      body: {
        // OPA Gatekeeper 3.1's validating webhook.
        metadata: { name: "gatekeeper-validating-webhook-configuration" },
        webhooks: [
          {
            name: "validation.gatekeeper.sh",
            clientConfig: service("gatekeeper-system", "gatekeeper-webhook-service", "/v1/admit"),
            rules: [v1beta1Rule(["*"], ["*"], ["CREATE", "UPDATE"])],
            namespaceSelector: {
              matchExpressions: [
                { key: "admission.gatekeeper.sh/ignore", operator: "DoesNotExist" },
              ],
            },
            failurePolicy: "Ignore",
            sideEffects: "None",
            timeoutSeconds: 3,
          },
        ],
      },
    },
  ];
}

// ---- seeding -----------------------------------------------------------------------------------

/** The seeded demo: its webhook servers, to close when the demo stops. */
export interface SeededDemo {
  backends: Backends;
  close(): Promise<void>;
}

/** An admin client of the control plane for the seed and the traffic generator. */
export function adminApi(cp: ControlPlaneInfo) {
  const ca = readFileSync(cp.caFile);
  return (method: string, p: string, body?: unknown, contentType?: string) =>
    httpsRequest(`${cp.server}${p}`, { method, body, ca, token: cp.tokens.admin, contentType });
}

/**
 * Starts the harness webhook servers and creates everything in the tables above (existing
 * objects are left as they are). `log` gets one line per step.
 */
export async function seedDemo(
  cp: ControlPlaneInfo,
  log: (line: string) => void = () => undefined,
): Promise<SeededDemo> {
  const api = adminApi(cp);
  const create = async (p: string, body: unknown) => {
    const res = await api("POST", p, body);
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`seeding ${p}: ${res.status} ${res.body.slice(0, 500)}`);
  };

  // A CA valid for 9 more days, as a hand-rolled certificate generator leaves behind.
  const expiringDir = path.join(cp.dir, "demo-expiring-ca");
  mkdirSync(expiringDir, { recursive: true });
  const expiringCa = createCa(expiringDir, "ingress-nginx-admission-ca", 9);
  const main = await startWebhookServer({ certFile: cp.caFile, keyFile: cp.caKeyFile });
  const expiring = await startWebhookServer(expiringCa);
  const backends: Backends = { main, expiring };
  const close = async () => {
    await Promise.all([main.close(), expiring.close()]);
  };
  try {
    for (const [name, behaviour] of Object.entries(DEMO_BEHAVIOURS)) {
      main.program(name, behaviour);
      expiring.program(name, behaviour);
    }

    log("demo: namespaces");
    for (const [name, labels] of Object.entries(DEMO_NAMESPACES)) {
      if (name.startsWith("kube-")) {
        const res = await api(
          "PATCH",
          `/api/v1/namespaces/${name}`,
          { metadata: { labels } },
          "application/merge-patch+json",
        );
        if (res.status !== 200) throw new Error(`labelling ${name}: ${res.status} ${res.body}`);
      } else {
        await create("/api/v1/namespaces", { metadata: { name, labels } });
      }
    }

    log("demo: custom resources the hooks guard");
    for (const c of CRDS)
      await create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(c));
    log("demo: the policy engines' CRDs (Gatekeeper, Kyverno, Kubewarden)");
    const admin = { server: cp.server, ca: readFileSync(cp.caFile), token: cp.tokens.admin };
    await installEngineCrds(admin);

    log("demo: policy parameters and admission policies");
    for (const cm of POLICY_PARAMS)
      await create(`/api/v1/namespaces/${cm.metadata.namespace}/configmaps`, cm);
    for (const [collection, body] of DEMO_POLICIES)
      await create(`${ADMISSION}/${collection}`, body);

    log("demo: webhook configurations");
    const { mutating, validating } = demoWebhookConfigurations(backends);
    for (const body of mutating) await create(`${ADMISSION}/mutatingwebhookconfigurations`, body);
    for (const body of validating)
      await create(`${ADMISSION}/validatingwebhookconfigurations`, body);
    for (const o of GUARD_BACKEND) await create(o.path, o.body);

    log(
      "demo: Gatekeeper — a ConstraintTemplate, two Constraints and what Gatekeeper makes of them",
    );
    await create("/api/v1/namespaces", { metadata: { name: "gatekeeper-system" } });
    await seedGatekeeper(engineApi(admin));
    log("demo: Kyverno — a ClusterPolicy and the admission policy it generates");
    await seedKyverno(engineApi(admin));

    log(`demo: historical admission kinds, served locally in ${LEGACY_ADMISSION_GROUP}`);
    await installLegacyCrds({
      server: cp.server,
      ca: readFileSync(cp.caFile),
      token: cp.tokens.admin,
    });
    for (const o of demoLegacyConfigurations(main.caBundle))
      await create(`/apis/${LEGACY_ADMISSION_GROUP}/${o.version}/${o.plural}`, {
        apiVersion: `${LEGACY_ADMISSION_GROUP}/${o.version}`,
        kind: o.kind,
        ...o.body,
      });
    return { backends, close };
  } catch (e) {
    await close();
    throw e;
  }
}
