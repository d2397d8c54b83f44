// The static manifest directories (KEP-5793, ManifestBasedAdmissionControlConfig, beta and on by
// default in 1.37) of the four admission plugins that take one: each plugin its own directory
// under the run's directory, named in its plugin configuration as `staticManifestsDir`, and
// seeded with a small set that cannot disturb other tests.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

import type { AdmissionPluginEntry } from "./index";

/** The plugins that take a staticManifestsDir, by their registered names. */
export type ManifestPluginName =
  | "MutatingAdmissionPolicy"
  | "MutatingAdmissionWebhook"
  | "ValidatingAdmissionPolicy"
  | "ValidatingAdmissionWebhook";

/** Each plugin's manifest directory (absolute, as the apiserver requires). */
export type StaticManifestDirs = Record<ManifestPluginName, string>;

/**
 * The label that scopes every static hook and policy of the local control plane: only objects
 * carrying it (in the seed set: configmaps, and admission configuration objects for the static
 * webhooks) are intercepted, so other tests never meet them. Only tests of static admission and
 * the demo set it.
 */
export const STATIC_SCOPE_LABEL = "portcullis.dev/static-admission";

/**
 * The seed webhooks' URL: nothing listens on port 1, so a call is refused at once, and their
 * failurePolicy Ignore lets the request through. Tests add hooks calling their own webhook server.
 */
const SEED_WEBHOOK_URL = "https://127.0.0.1:1/hooks/static-seed";

/** The directories of a run, under `<run dir>/admission-manifests/<plugin>`. */
export function staticManifestDirs(dir: string): StaticManifestDirs {
  const base = path.join(path.resolve(dir), "admission-manifests");
  return {
    MutatingAdmissionPolicy: path.join(base, "mutating-admission-policy"),
    MutatingAdmissionWebhook: path.join(base, "mutating-admission-webhook"),
    ValidatingAdmissionPolicy: path.join(base, "validating-admission-policy"),
    ValidatingAdmissionWebhook: path.join(base, "validating-admission-webhook"),
  };
}

const selector = { matchLabels: { [STATIC_SCOPE_LABEL]: "on" } };

function seedWebhook(name: string): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: SEED_WEBHOOK_URL },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 2,
    failurePolicy: "Ignore",
    objectSelector: selector,
    rules: [
      {
        operations: ["CREATE", "UPDATE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      },
      {
        operations: ["CREATE", "UPDATE"],
        apiGroups: ["admissionregistration.k8s.io"],
        apiVersions: ["v1"],
        resources: ["validatingwebhookconfigurations", "validatingadmissionpolicies"],
      },
    ],
  };
}

const configMapRules = [
  {
    operations: ["CREATE", "UPDATE"],
    apiGroups: [""],
    apiVersions: ["v1"],
    resources: ["configmaps"],
  },
];

/** The seed set: one object (with its binding) per plugin, each scoped by STATIC_SCOPE_LABEL. */
function seedObjects(): Record<ManifestPluginName, Record<string, unknown>[]> {
  const v1 = "admissionregistration.k8s.io/v1";
  return {
    MutatingAdmissionWebhook: [
      {
        apiVersion: v1,
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "seed.static.k8s.io" },
        webhooks: [seedWebhook("seed-mutate.portcullis.dev")],
      },
    ],
    ValidatingAdmissionWebhook: [
      {
        apiVersion: v1,
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "seed.static.k8s.io" },
        webhooks: [seedWebhook("seed-validate.portcullis.dev")],
      },
    ],
    MutatingAdmissionPolicy: [
      {
        apiVersion: v1,
        kind: "MutatingAdmissionPolicy",
        metadata: { name: "seed.static.k8s.io" },
        spec: {
          matchConstraints: { resourceRules: configMapRules, objectSelector: selector },
          failurePolicy: "Fail",
          reinvocationPolicy: "Never",
          mutations: [
            {
              patchType: "ApplyConfiguration",
              applyConfiguration: {
                expression:
                  'Object{metadata: Object.metadata{annotations: {"portcullis.dev/static-seed": "stamped"}}}',
              },
            },
          ],
        },
      },
      {
        apiVersion: v1,
        kind: "MutatingAdmissionPolicyBinding",
        metadata: { name: "seed.static.k8s.io" },
        spec: { policyName: "seed.static.k8s.io" },
      },
    ],
    ValidatingAdmissionPolicy: [
      {
        apiVersion: v1,
        kind: "ValidatingAdmissionPolicy",
        metadata: { name: "seed.static.k8s.io" },
        spec: {
          matchConstraints: { resourceRules: configMapRules, objectSelector: selector },
          failurePolicy: "Fail",
          validations: [
            {
              expression: '!has(object.data) || !("static-deny" in object.data)',
              message: "denied by the static seed policy",
            },
          ],
        },
      },
      {
        apiVersion: v1,
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: "seed.static.k8s.io" },
        spec: { policyName: "seed.static.k8s.io", validationActions: ["Deny"] },
      },
    ],
  };
}

/** The configuration kind each plugin's entry takes (apiserver.config.k8s.io/v1). */
const CONFIG_KIND: Record<ManifestPluginName, string> = {
  MutatingAdmissionWebhook: "WebhookAdmissionConfiguration",
  ValidatingAdmissionWebhook: "WebhookAdmissionConfiguration",
  MutatingAdmissionPolicy: "MutatingAdmissionPolicyConfiguration",
  ValidatingAdmissionPolicy: "ValidatingAdmissionPolicyConfiguration",
};

/**
 * Creates the four directories with their seed files (`00-seed.yaml`, one document per object)
 * and returns the plugins' entries naming them.
 */
export function manifestPlugins(dir: string): AdmissionPluginEntry[] {
  const dirs = staticManifestDirs(dir);
  const seed = seedObjects();
  return (Object.keys(dirs) as ManifestPluginName[]).sort().map((plugin) => {
    mkdirSync(dirs[plugin], { recursive: true });
    writeFileSync(
      path.join(dirs[plugin], "00-seed.yaml"),
      seed[plugin].map((o) => JSON.stringify(o, null, 2)).join("\n---\n") + "\n",
    );
    return {
      name: plugin,
      configuration: {
        apiVersion: "apiserver.config.k8s.io/v1",
        kind: CONFIG_KIND[plugin],
        staticManifestsDir: dirs[plugin],
      },
    };
  });
}
