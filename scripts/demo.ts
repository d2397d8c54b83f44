/**
 * `npm run demo`: the dashboard on the built-in local control plane. Builds the control plane
 * once, starts it, seeds a few namespaces and admission webhooks served by real local HTTPS
 * webhook servers, then runs the dashboard on http://127.0.0.1:3000 (PORT to change it).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { launch, stopOnSignal } from "../cluster/launcher";
import { dashboardEnv, REPO_ROOT } from "../cluster/harness/stack";
import { startWebhookServer } from "../cluster/harness/webhook-server";
import { httpsRequest } from "../cluster/https-json";

const port = Number(process.env.PORT ?? 3000);
const dashboardUrl = `http://127.0.0.1:${port}`;

async function main(): Promise<void> {
  const cp = await launch(dashboardUrl);
  const hooks = await startWebhookServer({ certFile: cp.caFile, keyFile: cp.caKeyFile });
  const ca = readFileSync(cp.caFile);
  const post = async (p: string, body: unknown) => {
    const res = await httpsRequest(`${cp.server}${p}`, {
      method: "POST",
      body,
      ca,
      token: cp.tokens.admin,
    });
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`seeding ${p}: ${res.status} ${res.body}`);
  };
  for (const [name, runlevel] of [
    ["kube-system", "0"],
    ["platform-webhooks", "1"],
    ["team-a", undefined],
    ["team-b", undefined],
  ] as const) {
    const labels = runlevel ? { runlevel } : { team: name };
    if (name === "kube-system") {
      await httpsRequest(`${cp.server}/api/v1/namespaces/kube-system`, {
        method: "PATCH",
        ca,
        token: cp.tokens.admin,
        body: { metadata: { labels } },
      }).catch(() => undefined);
    } else {
      await post("/api/v1/namespaces", { metadata: { name, labels } });
    }
  }
  hooks.program("inject-sidecar", { type: "patch", patch: [] });
  hooks.program("require-team-label", { type: "allow" });
  const common = { sideEffects: "None", admissionReviewVersions: ["v1"], timeoutSeconds: 5 };
  await post("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
    metadata: { name: "sidecar-injector" },
    webhooks: [
      {
        name: "inject.sidecar.demo.portcullis.dev",
        clientConfig: { url: hooks.url("inject-sidecar"), caBundle: hooks.caBundle },
        rules: [
          { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
        namespaceSelector: {
          matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
        },
        reinvocationPolicy: "IfNeeded",
        ...common,
      },
    ],
  });
  await post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
    metadata: { name: "team-policy" },
    webhooks: [
      {
        name: "require-team-label.demo.portcullis.dev",
        clientConfig: { url: hooks.url("require-team-label"), caBundle: hooks.caBundle },
        rules: [
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: ["", "apps"],
            apiVersions: ["v1"],
            resources: ["configmaps", "deployments"],
          },
        ],
        failurePolicy: "Ignore",
        ...common,
      },
    ],
  });

  // Through the start script: loopback only, and the request policy told the port.
  const dashboard = spawn(process.execPath, [path.join(REPO_ROOT, "scripts/start.mjs"), "--dev"], {
    cwd: REPO_ROOT,
    env: { ...dashboardEnv(cp), PORT: String(port) },
    stdio: "inherit",
  });
  process.stdout.write(
    `\nPortcullis: ${dashboardUrl}  (Ctrl-C stops the dashboard and the cluster)\n\n`,
  );
  stopOnSignal(cp, async () => {
    dashboard.kill("SIGTERM");
    await hooks.close();
  });
  dashboard.on("exit", (code) => {
    if (code !== null && code !== 0) {
      process.stderr.write(`dashboard exited with code ${code}\n`);
      process.kill(process.pid, "SIGTERM");
    }
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`demo: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
