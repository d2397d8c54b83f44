/**
 * A watch the apiserver keeps refusing while the list succeeds (a user granted get and list but
 * not watch, or a proxy in front of the apiserver that does not pass watches) is retried with a
 * growing pause, not relisted every second. A dashboard of its own, for a service account bound
 * to a ClusterRole with only get and list on validatingwebhookconfigurations: its live stream of
 * them gets a snapshot, the watch's 403 (so the page says it is not current), and, over 12 s, a
 * new snapshot after 1, 2 and 4 s — not one a second, each a full list of the collection asked
 * of the apiserver and sent to every browser.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dashboardEnv, readStack, type StackInfo } from "../../cluster/harness/stack";
import { admin } from "../../cluster/harness/shared-dashboard";
import { startDashboard, type DashboardProcess } from "../../test/dashboard-process";
import { policyHeaders } from "../../test/api-headers";
import { readEventStream } from "../../test/event-stream";

const NS = "default";
const SA = "portcullis-list-only";
const CONTEXT = "list-only@portcullis-local";
let stack: StackInfo;
let dashboard: DashboardProcess;

beforeAll(async () => {
  stack = readStack();
  await admin(stack, "POST", `/api/v1/namespaces/${NS}/serviceaccounts`, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: SA },
  });
  await admin(stack, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: SA },
    rules: [
      {
        apiGroups: ["admissionregistration.k8s.io"],
        resources: ["validatingwebhookconfigurations"],
        verbs: ["get", "list"],
      },
    ],
  });
  await admin(stack, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: SA },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: SA },
    subjects: [{ kind: "ServiceAccount", name: SA, namespace: NS }],
  });
  const res = await admin(stack, "POST", `/api/v1/namespaces/${NS}/serviceaccounts/${SA}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  });
  const token = (JSON.parse(res.body) as { status: { token: string } }).status.token;
  const dir = mkdtempSync(path.join(stack.dir, "watch-backoff-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "  - name: portcullis-local",
      "    cluster:",
      `      server: ${stack.server}`,
      `      certificate-authority: ${stack.caFile}`,
      "users:",
      "  - name: list-only",
      "    user:",
      `      token: ${token}`,
      "contexts:",
      `  - name: ${CONTEXT}`,
      "    context:",
      "      cluster: portcullis-local",
      "      user: list-only",
      `current-context: ${CONTEXT}`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const env = dashboardEnv(stack);
  delete env.PORTCULLIS_OTLP_LISTEN;
  dashboard = await startDashboard({
    ...env,
    KUBECONFIG: kubeconfig,
    PORTCULLIS_DEFAULT_CONTEXT: CONTEXT,
    PORTCULLIS_DATA_DIR: path.join(dir, "data"),
  });
}, 90_000);

afterAll(async () => {
  await dashboard?.kill("SIGTERM");
  for (const p of ["clusterrolebindings", "clusterroles"])
    await admin(stack, "DELETE", `/apis/rbac.authorization.k8s.io/v1/${p}/${SA}`).catch(() => {});
  await admin(stack, "DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/${SA}`).catch(() => {});
});

it("retries a refused watch with a growing pause instead of relisting every second", async () => {
  const abort = new AbortController();
  const res = await fetch(
    `${dashboard.url}api/watch?r=admissionregistration.k8s.io/v1/validatingwebhookconfigurations`,
    { headers: policyHeaders(CONTEXT), signal: abort.signal },
  );
  expect(res.status).toBe(200);
  const stream = readEventStream(res.body as ReadableStream<Uint8Array>);
  await new Promise((r) => setTimeout(r, 12_000));
  abort.abort();
  const text = await stream.ended;
  const syncs = text.split('"type":"SYNC"').length - 1;
  const errors = text.split('"type":"ERROR"').length - 1;
  console.info(`in 12 s: ${syncs} snapshots, ${errors} watch errors`);
  expect(text).toContain('"reason":"Forbidden"');
  expect(syncs).toBeGreaterThanOrEqual(3);
  // Relists at about 0, 1, 3 and 7 s (and 15 s): never one a second.
  expect(syncs).toBeLessThanOrEqual(5);
}, 60_000);
