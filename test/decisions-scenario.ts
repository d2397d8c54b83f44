/**
 * A namespace where every admission outcome the decision feed knows can be produced on demand,
 * against the real apiserver: harness webhooks that allow, patch, deny, and sleep past their
 * timeout (failurePolicy Ignore and Fail), and ValidatingAdmissionPolicies that deny and warn.
 * Each case is picked by the label `portcullis-e2e/case` of the ConfigMap created.
 */
import { readFileSync } from "node:fs";
import type { StackInfo } from "../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../cluster/harness/webhook-server";
import { httpsRequest, type HttpsJsonResponse } from "../cluster/https-json";

export const CASES = [
  "allow",
  "patch",
  "deny",
  "slow-ignore",
  "slow-fail",
  "vap-deny",
  "vap-warn",
] as const;
export type Case = (typeof CASES)[number];

/** Markup, quotes and another webhook's wording: the feed must show it as the text it is. */
export const DENY_MESSAGE =
  'configmaps labelled deny are refused by the harness: <b>"bold"</b> & <img src=x onerror=alert(1)> 🚀 (not admission webhook "other.example.com" denied the request)';
export const VAP_DENY_MESSAGE = "vap-deny configmaps are not allowed";
export const VAP_WARN_MESSAGE = "vap-warn configmaps should carry an owner";

export interface Scenario {
  namespace: string;
  server: WebhookServer;
  /** Webhook or policy name deciding each case. */
  hookOf: Record<Case, string>;
  /** Creates a ConfigMap for the case as admin; returns the apiserver's answer. */
  create(c: Case, name: string): Promise<HttpsJsonResponse>;
  /** Creates ConfigMaps for the case until the case's decider has surely run; returns the last answer. */
  produce(c: Case): Promise<HttpsJsonResponse>;
  cleanup(): Promise<void>;
}

const LABEL = "portcullis-e2e/case";
const ADM = "/apis/admissionregistration.k8s.io/v1";

function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
}

/** The message of a Status answer (its JSON escapes markup: compare it decoded). */
function statusMessage(res: HttpsJsonResponse): string {
  try {
    return String((JSON.parse(res.body) as { message?: unknown }).message ?? "");
  } catch {
    return "";
  }
}

/** Sets up the namespace, the harness webhooks and the policies. */
export async function startScenario(stack: StackInfo): Promise<Scenario> {
  const ca = readFileSync(stack.caFile);
  const kube = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${stack.server}${path}`, { method, body, ca, token: stack.tokens.admin });
  const must = async (method: string, path: string, body: unknown) => {
    const res = await kube(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  };
  const namespace = unique("decisions");
  const server = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  const hookOf = Object.fromEntries(
    CASES.map((c) => [
      c,
      c.startsWith("vap-") ? `${c}.${namespace}` : `${c}.${namespace}.e2e.test`,
    ]),
  ) as Record<Case, string>;

  server.program(hookOf.allow, { type: "allow" });
  server.program(hookOf.patch, {
    type: "patch",
    patch: [{ op: "add", path: "/data", value: { patched: "by-harness" } }],
  });
  server.program(hookOf.deny, { type: "deny", message: DENY_MESSAGE });
  server.program(hookOf["slow-ignore"], { type: "sleep", seconds: 3 });
  server.program(hookOf["slow-fail"], { type: "sleep", seconds: 3 });

  const hook = (c: Case, extra: Record<string, unknown> = {}) => ({
    name: hookOf[c],
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: server.url(hookOf[c]), caBundle: server.caBundle },
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
    objectSelector: { matchLabels: { [LABEL]: c } },
    timeoutSeconds: 1,
    ...extra,
  });

  await must("POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: namespace },
  });
  await must("POST", `${ADM}/mutatingwebhookconfigurations`, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: `${namespace}-mutating` },
    webhooks: [hook("allow"), hook("patch")],
  });
  await must("POST", `${ADM}/validatingwebhookconfigurations`, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: `${namespace}-validating` },
    webhooks: [
      hook("deny"),
      hook("slow-ignore", { failurePolicy: "Ignore" }),
      hook("slow-fail", { failurePolicy: "Fail" }),
    ],
  });
  for (const [c, actions, message] of [
    ["vap-deny", ["Deny"], VAP_DENY_MESSAGE],
    ["vap-warn", ["Warn", "Audit"], VAP_WARN_MESSAGE],
  ] as const) {
    await must("POST", `${ADM}/validatingadmissionpolicies`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: hookOf[c] },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              operations: ["CREATE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["configmaps"],
            },
          ],
        },
        validations: [{ expression: "false", message }],
      },
    });
    await must("POST", `${ADM}/validatingadmissionpolicybindings`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: `${hookOf[c]}-binding` },
      spec: {
        policyName: hookOf[c],
        validationActions: actions,
        matchResources: {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
          objectSelector: { matchLabels: { [LABEL]: c } },
        },
      },
    });
  }

  const create = (c: Case, name: string) =>
    kube("POST", `/api/v1/namespaces/${namespace}/configmaps`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, labels: { [LABEL]: c } },
    });

  /** Whether the answer shows the case's decider ran (configuration changes take a moment to apply). */
  const decided = (c: Case, res: HttpsJsonResponse, callsBefore: number): boolean => {
    switch (c) {
      case "allow":
      case "slow-ignore":
        return server.calls(hookOf[c]).length > callsBefore && res.status === 201;
      case "patch":
        return res.status === 201 && res.body.includes("by-harness");
      case "deny":
        return res.status === 403 && statusMessage(res).endsWith(DENY_MESSAGE);
      case "slow-fail":
        return res.status === 500 && res.body.includes(hookOf[c]);
      case "vap-deny":
        return res.status >= 400 && res.body.includes(VAP_DENY_MESSAGE);
      case "vap-warn":
        // The warning reaches the client as a header; the feed sees it through the Audit action.
        return res.status === 201 && String(res.headers.warning ?? "").includes(VAP_WARN_MESSAGE);
    }
  };

  return {
    namespace,
    server,
    hookOf,
    create,
    produce: async (c) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const before = server.calls(hookOf[c]).length;
        const res = await create(c, unique(c));
        if (decided(c, res, before)) return res;
        if (Date.now() > deadline)
          throw new Error(`case ${c} never decided: ${res.status} ${res.body.slice(0, 300)}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    },
    cleanup: async () => {
      await kube("DELETE", `${ADM}/mutatingwebhookconfigurations/${namespace}-mutating`);
      await kube("DELETE", `${ADM}/validatingwebhookconfigurations/${namespace}-validating`);
      for (const c of ["vap-deny", "vap-warn"] as const) {
        await kube("DELETE", `${ADM}/validatingadmissionpolicybindings/${hookOf[c]}-binding`);
        await kube("DELETE", `${ADM}/validatingadmissionpolicies/${hookOf[c]}`);
      }
      await kube("DELETE", `/api/v1/namespaces/${namespace}`);
      await server.close();
    },
  };
}
