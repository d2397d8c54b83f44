/** Shared pieces of the webhook e2e tests: unique names, seeding through the apiserver, Monaco access. */
import type { Page } from "@playwright/test";
import type { Cleanup, Kube } from "./fixtures";

export const GROUP_PATH = "/apis/admissionregistration.k8s.io/v1";
export type Resource = "validatingwebhookconfigurations" | "mutatingwebhookconfigurations";

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
}

/** A harmless hook: it only intercepts configmaps in namespaces labelled with a key nobody sets. */
export function hook(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: `https://127.0.0.1:9/hooks/${name}` },
    rules: [
      {
        operations: ["CREATE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      },
    ],
    namespaceSelector: { matchLabels: { "portcullis-e2e-never": "set" } },
    ...extra,
  };
}

export interface StoredConfig {
  metadata: { name: string; resourceVersion: string; uid: string };
  webhooks?: Array<Record<string, unknown> & { name: string }>;
}

export async function createConfig(
  kube: Kube,
  resource: Resource,
  name: string,
  webhooks: Array<Record<string, unknown>>,
): Promise<StoredConfig> {
  const kind =
    resource === "mutatingwebhookconfigurations"
      ? "MutatingWebhookConfiguration"
      : "ValidatingWebhookConfiguration";
  const res = await kube.request("POST", `${GROUP_PATH}/${resource}`, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    metadata: { name },
    webhooks,
  });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as StoredConfig;
}

/**
 * A mutating configuration of three hooks a, b and c (named after it), deleted after the test
 * (the undo registered before the create). `extra[i]` adds fields to the i-th hook.
 */
export async function threeHookConfig(
  kube: Kube,
  cleanup: Cleanup,
  prefix: string,
  extra: Array<Record<string, unknown>> = [],
): Promise<{ name: string; a: string; b: string; c: string; made: StoredConfig }> {
  const name = uniqueName(prefix);
  const [a, b, c] = ["a", "b", "c"].map((x) => `${x}.${name}.example.com`) as [
    string,
    string,
    string,
  ];
  cleanup.defer(async () => {
    await deleteConfig(kube, "mutatingwebhookconfigurations", name);
  });
  const made = await createConfig(
    kube,
    "mutatingwebhookconfigurations",
    name,
    [a, b, c].map((h, i) => hook(h, extra[i])),
  );
  return { name, a, b, c, made };
}

/** Reads a configuration from the apiserver; undefined on 404. */
export async function getConfig(
  kube: Kube,
  resource: Resource,
  name: string,
): Promise<StoredConfig | undefined> {
  const res = await kube.request("GET", `${GROUP_PATH}/${resource}/${name}`);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`get ${name}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as StoredConfig;
}

export async function deleteConfig(kube: Kube, resource: Resource, name: string): Promise<void> {
  await kube.request("DELETE", `${GROUP_PATH}/${resource}/${name}`);
}

/** Waits for the editor's model (path ends in `<resource>.yaml`) and returns its text. */
export async function editorText(page: Page, resource: string): Promise<string> {
  await page.waitForFunction(
    (r) => !!window.monaco?.editor.getModels().some((m) => m.uri.path.endsWith(`/${r}.yaml`)),
    resource,
  );
  return page.evaluate(
    (r) =>
      window.monaco?.editor
        .getModels()
        .find((m) => m.uri.path.endsWith(`/${r}.yaml`))
        ?.getValue() ?? "",
    resource,
  );
}

/** Replaces the editor text as a paste would (the editor's change handlers run). */
export async function setEditorText(page: Page, resource: string, text: string): Promise<void> {
  await editorText(page, resource);
  await page.evaluate(
    ({ r, t }) => {
      const model = window.monaco?.editor
        .getModels()
        .find((m) => m.uri.path.endsWith(`/${r}.yaml`));
      if (!model) throw new Error("no editor model");
      model.pushEditOperations([], [{ range: model.getFullModelRange(), text: t }], () => null);
    },
    { r: resource, t: text },
  );
}

export interface SeenMarker {
  owner: string;
  line: number;
  message: string;
  severity: number;
}

/** Markers on the editor's model, as Monaco holds them. */
export async function editorMarkers(page: Page, resource: string): Promise<SeenMarker[]> {
  return page.evaluate((r) => {
    const m = window.monaco;
    const model = m?.editor.getModels().find((x) => x.uri.path.endsWith(`/${r}.yaml`));
    if (!m || !model) return [];
    return m.editor.getModelMarkers({ resource: model.uri }).map((x) => ({
      owner: x.owner,
      line: x.startLineNumber,
      message: x.message,
      severity: x.severity,
    }));
  }, resource);
}

/** 1-based line of the first line containing `needle`. */
export function lineOf(text: string, needle: string): number {
  const i = text.split("\n").findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" not in the text`);
  return i + 1;
}
