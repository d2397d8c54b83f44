/**
 * When the demo is ready: every page of the navigation answers and the data behind them is there
 * (seeded hooks and policies listed, decisions arrived from the audit webhook, health computed).
 * The list of pages is shared with the demo's end-to-end test and the screenshot script.
 */
import { LEGACY_ADMISSION_GROUP } from "../legacy-crds";

/** One page of the demo: where it is, the app route it renders, and a text it shows with data. */
export interface DemoPage {
  path: string;
  /** The app/ route (its folder, with [params]) that renders `path`. */
  route: string;
  /** The screenshot's name (docs/screenshots/<name>.png). */
  name: string;
  shows: string;
}

/**
 * Every page a newcomer reaches from the navigation (the historical kinds' pages too: the demo
 * serves them from the legacy group), a detail, new and edit page of each kind, and a text each
 * shows only once it has its data (from the cluster: a named hook, a runlevel group, a live
 * decision, a lint finding, a policy binding, a historical configuration; the new pages: their
 * template).
 */
export const DEMO_PAGES: ReadonlyArray<DemoPage> = [
  { path: "/", route: "/", name: "overview", shows: "admissionregistration.k8s.io/v1" },
  {
    path: "/webhooks",
    route: "/webhooks",
    name: "webhooks",
    shows: "namespace.sidecar-injector.istio.io",
  },
  {
    path: "/webhooks/validatingwebhookconfigurations/tenant-guard",
    route: "/webhooks/[resource]/[name]",
    name: "webhook-detail",
    shows: "guard-system/tenant-guard",
  },
  {
    path: "/webhooks/mutatingwebhookconfigurations/istio-sidecar-injector/edit",
    route: "/webhooks/[resource]/[name]/edit",
    name: "webhook-edit",
    shows: "namespace.sidecar-injector.istio.io",
  },
  {
    path: "/webhooks/new",
    route: "/webhooks/new",
    name: "webhook-new",
    shows: "runlevel",
  },
  {
    path: "/policies",
    route: "/policies",
    name: "policies",
    shows: "require-team-label-teams",
  },
  {
    path: "/policies/validatingadmissionpolicies/require-team-label",
    route: "/policies/[resource]/[name]",
    name: "policy-detail",
    shows: "policy-params/known-teams",
  },
  {
    path: "/policies/validatingadmissionpolicies/require-team-label/edit",
    route: "/policies/[resource]/[name]/edit",
    name: "policy-edit",
    shows: "require-team-label",
  },
  {
    path: "/policies/new",
    route: "/policies/new",
    name: "policy-new",
    shows: "require-labels",
  },
  {
    path: "/webhooks/order",
    route: "/webhooks/order",
    name: "order",
    shows: "istio-sidecar-injector",
  },
  { path: "/namespaces", route: "/namespaces", name: "namespaces", shows: "istio-system" },
  {
    path: "/namespaces/shop-payments",
    route: "/namespaces/[name]",
    name: "namespace-detail",
    shows: "namespace.sidecar-injector.istio.io",
  },
  {
    path: "/hooks/MutatingWebhookConfiguration/istio-sidecar-injector/namespace.sidecar-injector.istio.io",
    route: "/hooks/[source]/[configuration]/[name]",
    name: "hook-namespaces",
    shows: "kube-node-lease, kube-public, kube-system",
  },
  {
    path: "/deadlocks",
    route: "/deadlocks",
    name: "deadlocks",
    shows: "Fail-closed webhook intercepts its own backend",
  },
  { path: "/health", route: "/health", name: "health", shows: "mservice.elbv2.k8s.aws" },
  { path: "/predict", route: "/predict", name: "predict", shows: "Labels of default (live)" },
  // The newest 500 decisions pass in about a minute, so the plain feed is checked for a hook that
  // sees most of the traffic, and the denials (rarer, kept in view far longer) for a denial.
  {
    path: "/decisions",
    route: "/decisions",
    name: "decisions",
    shows: "validate.kyverno.svc-ignore",
  },
  {
    path: "/decisions?outcome=denied",
    route: "/decisions",
    name: "decisions-denied",
    shows: "policy require-requests-limits",
  },
  // The policy engines (cluster/engines.ts seedGatekeeper).
  { path: "/engines", route: "/engines", name: "engines", shows: "ns-must-have-owner" },
  // Every context of the demo's kubeconfig, read (its version shown once a row is read).
  { path: "/fleet", route: "/fleet", name: "fleet", shows: "v1.37" },
  // Admission changes: the demo's writes from the audit sink, and what the watch found (its first
  // read starts the watch), each with the resourceVersion it made.
  { path: "/changes", route: "/changes", name: "changes", shows: "shown" },
  {
    path: "/history/ValidatingWebhookConfiguration/tenant-guard",
    route: "/history/[kind]/[name]",
    name: "history-timeline",
    shows: "rv ",
  },
  // The historical kinds (cluster/harness/demo-seed.ts demoLegacyConfigurations).
  {
    path: "/initializers",
    route: "/initializers",
    name: "initializers",
    shows: "sidecar.initializer.istio.io",
  },
  {
    path: "/external-admission-hooks",
    route: "/external-admission-hooks",
    name: "external-admission-hooks",
    shows: "pod-image.k8s.io",
  },
  {
    path: "/legacy-webhooks",
    route: "/legacy-webhooks",
    name: "legacy-webhooks",
    shows: "linkerd-proxy-injector.linkerd.io",
  },
];

/**
 * One seeded object of each historical kind the dashboard lists from the legacy group:
 * [version, plural, a name it holds].
 */
export const LEGACY_OBJECTS: ReadonlyArray<readonly [string, string, string]> = [
  ["v1alpha1", "initializerconfigurations", "sidecar.initializer.istio.io"],
  ["v1alpha1", "externaladmissionhookconfigurations", "pod-image.k8s.io"],
  ["v1beta1", "mutatingwebhookconfigurations", "linkerd-proxy-injector.linkerd.io"],
  ["v1beta1", "validatingwebhookconfigurations", "validation.gatekeeper.sh"],
];

/** What the dashboard's own pages send (Fetch Metadata and the tab's context). */
function pageHeaders(context: string): Record<string, string> {
  return { "sec-fetch-site": "same-origin", "x-portcullis-context": context };
}

/** Each check returns undefined when satisfied, else what is still missing. */
async function missing(url: string, context: string): Promise<string | undefined> {
  const get = async (p: string) => {
    const res = await fetch(`${url}${p}`, { headers: pageHeaders(context) });
    return { status: res.status, text: await res.text() };
  };
  for (const page of DEMO_PAGES) {
    const res = await get(page.path);
    if (res.status !== 200) return `page ${page.path} answers ${res.status}`;
  }
  const hooks = await get(
    "/api/resources/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
  );
  if (!hooks.text.includes("tenant-guard")) return "the webhook list";
  const decisions = await get("/api/decisions?limit=5");
  if (decisions.status !== 200) return `decisions (${decisions.status})`;
  const { items } = JSON.parse(decisions.text) as { items: unknown[] };
  if (items.length === 0) return "a first admission decision";
  const denied = await get("/api/decisions?outcome=denied&limit=100");
  if (!denied.text.includes("require-requests-limits")) return "the policy engine's first denial";
  for (const [version, plural, name] of LEGACY_OBJECTS) {
    const list = await get(`/api/resources/${LEGACY_ADMISSION_GROUP}/${version}/${plural}`);
    if (!list.text.includes(name)) return `historical ${plural}`;
  }
  const health = await get("/api/admission-health");
  if (health.status !== 200 || !health.text.includes("validate.kyverno.svc-ignore"))
    return "hook health";
  return undefined;
}

/**
 * Waits until every demo page has data, logging what it waits for at most every 10 s; rejects
 * when `signal` aborts or after `timeoutMs`.
 */
export async function waitForDemoData(
  url: string,
  context: string,
  timeoutMs: number,
  log: (line: string) => void = () => undefined,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastLog = 0;
  let waitingFor = "the dashboard";
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      const m = await missing(url, context);
      if (m === undefined) return;
      waitingFor = m;
    } catch {
      waitingFor = "the dashboard to listen";
    }
    if (Date.now() - lastLog > 10_000) {
      log(`demo: waiting for ${waitingFor}…`);
      lastLog = Date.now();
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the demo had no ${waitingFor} after ${timeoutMs / 1000} s`);
}
