/**
 * When the demo is ready: every page of the navigation answers and the data behind them is there
 * (seeded hooks and policies listed, decisions arrived from the audit webhook, health computed).
 * The list of pages is shared with the demo's end-to-end test and the screenshot script.
 */

/**
 * Every page a newcomer reaches from the navigation, a detail page of each kind, and a text each
 * shows only once it has data from the cluster (a named hook, a runlevel group, a live decision,
 * a lint finding, a policy binding).
 */
export const DEMO_PAGES: ReadonlyArray<{ path: string; name: string; shows: string }> = [
  { path: "/", name: "overview", shows: "admissionregistration.k8s.io/v1" },
  { path: "/webhooks", name: "webhooks", shows: "namespace.sidecar-injector.istio.io" },
  {
    path: "/webhooks/validatingwebhookconfigurations/tenant-guard",
    name: "webhook-detail",
    shows: "guard-system/tenant-guard",
  },
  { path: "/policies", name: "policies", shows: "require-team-label-teams" },
  {
    path: "/policies/validatingadmissionpolicies/require-team-label",
    name: "policy-detail",
    shows: "policy-params/known-teams",
  },
  { path: "/webhooks/order", name: "order", shows: "istio-sidecar-injector" },
  { path: "/namespaces", name: "namespaces", shows: "shop-payments" },
  {
    path: "/namespaces/shop-payments",
    name: "namespace-detail",
    shows: "namespace.sidecar-injector.istio.io",
  },
  {
    path: "/hooks/MutatingWebhookConfiguration/istio-sidecar-injector/namespace.sidecar-injector.istio.io",
    name: "hook-namespaces",
    shows: "kube-node-lease, kube-public, kube-system",
  },
  {
    path: "/deadlocks",
    name: "deadlocks",
    shows: "Fail-closed webhook intercepts its own backend",
  },
  { path: "/health", name: "health", shows: "mservice.elbv2.k8s.aws" },
  { path: "/predict", name: "predict", shows: "Labels of default (live)" },
  // The newest 500 decisions pass in about a minute, so the plain feed is checked for a hook that
  // sees most of the traffic, and the denials (rarer, kept in view far longer) for a denial.
  { path: "/decisions", name: "decisions", shows: "validate.kyverno.svc-ignore" },
  {
    path: "/decisions?outcome=denied",
    name: "decisions-denied",
    shows: "policy require-requests-limits",
  },
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
