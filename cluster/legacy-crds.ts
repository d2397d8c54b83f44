/**
 * The historical admission kinds, served from the real local control plane as
 * CustomResourceDefinitions carrying their original schemas. A current apiserver no longer serves
 * them, and a CRD in admissionregistration.k8s.io is accepted but never served, so they live in a
 * group of the project's own; the dashboard is pointed at it with PORTCULLIS_LEGACY_ADMISSION_GROUP.
 *
 * - InitializerConfiguration v1alpha1 (1.7–1.13): `initializers[] {name, rules[] {apiGroups,
 *   apiVersions, resources}}` — the published v1alpha1 shape (no failurePolicy, no operations).
 * - ExternalAdmissionHookConfiguration v1alpha1 (1.7–1.8): `externalAdmissionHooks[] {name,
 *   clientConfig {service {namespace, name}, caBundle}, rules[] (with operations), failurePolicy}`.
 * - Mutating/ValidatingWebhookConfiguration v1beta1 (1.9–1.21): the 1.21 v1beta1 webhook shape.
 *
 * The apiserver's structural checks stop at types and required fields; the rules the old
 * apiservers enforced (fully qualified names, wildcard rules, no subresources for initializers)
 * are lib/admission's, shown by the dashboard before a write.
 */
import { httpsRequest } from "./https-json";

/** The group the local control plane serves the historical kinds in (the RBAC roles cover it). */
export const LEGACY_ADMISSION_GROUP = "admission.portcullis.dev";

type Schema = Record<string, unknown>;

const str: Schema = { type: "string" };
const strList: Schema = { type: "array", items: str };

const rule: Schema = {
  type: "object",
  properties: { apiGroups: strList, apiVersions: strList, resources: strList },
};

const ruleWithOperations: Schema = {
  type: "object",
  properties: { operations: strList, apiGroups: strList, apiVersions: strList, resources: strList },
};

const v1beta1Rule: Schema = {
  type: "object",
  properties: {
    operations: strList,
    apiGroups: strList,
    apiVersions: strList,
    resources: strList,
    scope: { type: "string", enum: ["Cluster", "Namespaced", "*"] },
  },
};

const labelSelector: Schema = {
  type: "object",
  properties: {
    matchLabels: { type: "object", additionalProperties: str },
    matchExpressions: {
      type: "array",
      items: {
        type: "object",
        required: ["key", "operator"],
        properties: { key: str, operator: str, values: strList },
      },
    },
  },
};

const failurePolicy: Schema = { type: "string", enum: ["Ignore", "Fail"] };

function v1beta1Webhook(mutating: boolean): Schema {
  return {
    type: "object",
    required: ["name", "clientConfig"],
    properties: {
      name: str,
      clientConfig: {
        type: "object",
        properties: {
          url: str,
          service: {
            type: "object",
            required: ["namespace", "name"],
            properties: { namespace: str, name: str, path: str, port: { type: "integer" } },
          },
          caBundle: { type: "string", format: "byte" },
        },
      },
      rules: { type: "array", items: v1beta1Rule },
      failurePolicy,
      matchPolicy: { type: "string", enum: ["Exact", "Equivalent"] },
      namespaceSelector: labelSelector,
      objectSelector: labelSelector,
      sideEffects: { type: "string", enum: ["Unknown", "None", "Some", "NoneOnDryRun"] },
      timeoutSeconds: { type: "integer" },
      admissionReviewVersions: strList,
      ...(mutating ? { reinvocationPolicy: { type: "string", enum: ["Never", "IfNeeded"] } } : {}),
    },
  };
}

interface LegacyKind {
  kind: string;
  plural: string;
  version: string;
  listField: string;
  item: Schema;
}

const KINDS: LegacyKind[] = [
  {
    kind: "InitializerConfiguration",
    plural: "initializerconfigurations",
    version: "v1alpha1",
    listField: "initializers",
    item: {
      type: "object",
      required: ["name"],
      properties: { name: str, rules: { type: "array", items: rule } },
    },
  },
  {
    kind: "ExternalAdmissionHookConfiguration",
    plural: "externaladmissionhookconfigurations",
    version: "v1alpha1",
    listField: "externalAdmissionHooks",
    item: {
      type: "object",
      required: ["name", "clientConfig"],
      properties: {
        name: str,
        clientConfig: {
          type: "object",
          required: ["service", "caBundle"],
          properties: {
            service: {
              type: "object",
              required: ["namespace", "name"],
              properties: { namespace: str, name: str },
            },
            caBundle: { type: "string", format: "byte" },
          },
        },
        rules: { type: "array", items: ruleWithOperations },
        failurePolicy,
      },
    },
  },
  {
    kind: "MutatingWebhookConfiguration",
    plural: "mutatingwebhookconfigurations",
    version: "v1beta1",
    listField: "webhooks",
    item: v1beta1Webhook(true),
  },
  {
    kind: "ValidatingWebhookConfiguration",
    plural: "validatingwebhookconfigurations",
    version: "v1beta1",
    listField: "webhooks",
    item: v1beta1Webhook(false),
  },
];

/** The CustomResourceDefinitions of the historical kinds in `group`. */
export function legacyCrds(group: string = LEGACY_ADMISSION_GROUP): Schema[] {
  return KINDS.map((k) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${k.plural}.${group}` },
    spec: {
      group,
      scope: "Cluster",
      names: { kind: k.kind, plural: k.plural, listKind: `${k.kind}List` },
      versions: [
        {
          name: k.version,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                apiVersion: str,
                kind: str,
                metadata: { type: "object" },
                [k.listField]: {
                  type: "array",
                  items: k.item,
                  "x-kubernetes-list-type": "atomic",
                },
              },
            },
          },
        },
      ],
    },
  }));
}

/**
 * Creates (or leaves in place) the historical kinds' CRDs on the apiserver at `server` and waits
 * until discovery serves each of them.
 */
export async function installLegacyCrds(opts: {
  server: string;
  ca: string | Buffer;
  token: string;
  group?: string;
  timeoutMs?: number;
}): Promise<void> {
  const group = opts.group ?? LEGACY_ADMISSION_GROUP;
  const call = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${opts.server}${path}`, { method, body, ca: opts.ca, token: opts.token });
  for (const crd of legacyCrds(group)) {
    const res = await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`creating a legacy admission CRD failed: ${res.status} ${res.body}`);
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (const k of KINDS) {
    for (;;) {
      const res = await call("GET", `/apis/${group}/${k.version}/${k.plural}`);
      if (res.status === 200) break;
      if (Date.now() > deadline)
        throw new Error(`${k.plural}.${group} was not served in time (last answer ${res.status})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
