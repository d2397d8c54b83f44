/**
 * The built `portcullis` command as a subprocess: on files, and with --context against the real
 * control plane, where its prediction must name the webhooks the apiserver actually calls.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { httpsRequest } from "../cluster/https-json";
import { readStack, type StackInfo } from "../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../cluster/harness/webhook-server";
import { ensureCliBuilt } from "./build";
import { runCli } from "./test-helpers";

const G = "/apis/admissionregistration.k8s.io/v1";
let dir = "";
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

const VALID = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ok}
webhooks:
  - name: ok.example.com
    clientConfig: {url: "https://127.0.0.1:9443/v"}
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
    sideEffects: None
    admissionReviewVersions: [v1]
`;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-cli-int-"));
  await ensureCliBuilt();
}, 120_000);

describe("on files", () => {
  test("validate: exit 0 clean, 1 invalid, 2 unreadable; JSON on stdout", async () => {
    const ok = await runCli(["validate", file("ok.yaml", VALID), "-o", "json"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, summary: { accepted: 1 } });

    const bad = await runCli(["validate", "-", "-o", "json"], {
      stdin: VALID.replace("sideEffects: None", "sideEffects: Some"),
    });
    expect(bad.code).toBe(1);
    const doc = JSON.parse(bad.stdout).documents[0];
    expect(doc).toMatchObject({ source: "<stdin>", outcome: "invalid" });
    expect(doc.issues[0]).toMatchObject({
      field: "webhooks[0].sideEffects",
      type: "FieldValueNotSupported",
      line: 8,
      column: 18,
    });

    // predict reads its object from a pipe, as `kubectl get … -o yaml |` hands it over.
    const piped = await runCli(
      [
        "predict",
        "--config",
        file("hooks.yaml", VALID),
        "--object",
        "-",
        "--operation",
        "CREATE",
        "-o",
        "json",
      ],
      { stdin: "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team}\n" },
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout).calls).toMatchObject([{ hook: { name: "ok.example.com" } }]);

    const missing = await runCli(["validate", path.join(dir, "absent")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*absent: no such file or directory/);
    const usage = await runCli(["validate"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/Run 'portcullis help validate'/);
  });

  test("lint and predict run from the bundle", async () => {
    const cfg = file("cfg.yaml", VALID);
    const lint = await runCli(["lint", cfg, "--fail-on", "medium", "-o", "json"]);
    // The hook fails closed on every namespace's pods, kube-system's included: L2, critical, at
    // or above --fail-on medium, so the lint fails (exit 1).
    expect(lint.code, lint.stderr).toBe(1);
    expect(JSON.parse(lint.stdout)).toMatchObject({
      schema: "portcullis.lint/v1",
      mode: "offline",
      ok: false,
      findings: [{ id: "L2", severity: "critical" }],
    });
    const pod = file("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\n");
    const p = await runCli([
      "predict",
      "--config",
      cfg,
      "--object",
      pod,
      "--operation",
      "CREATE",
      "-o",
      "json",
    ]);
    expect(p.code).toBe(0);
    expect(JSON.parse(p.stdout).calls.map((c: { key: string }) => c.key)).toEqual([
      "ValidatingWebhookConfiguration:ok/ok.example.com/0",
    ]);
  });

  test("predict --admission-config: the PodSecurity plugin's exemptions decide the verdict", async () => {
    const cfg = file("empty.yaml", "");
    const admission = file(
      "admission.yaml",
      `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: PodSecurity
    path: pod-security.yaml
`,
    );
    file(
      "pod-security.yaml",
      `apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
exemptions: {usernames: [ci-bot]}
`,
    );
    const pod = file(
      "privileged.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team}\nspec: {containers: [{name: c, image: x, securityContext: {privileged: true}}]}\n",
    );
    const args = [
      "predict",
      "--config",
      cfg,
      "--object",
      pod,
      "--operation",
      "CREATE",
      "--namespace-labels",
      "pod-security.kubernetes.io/enforce=restricted",
      "--user",
      "ci-bot",
      "-o",
      "json",
    ];
    const exempt = await runCli([...args, "--admission-config", admission]);
    expect(exempt.code, exempt.stderr).toBe(0);
    expect(JSON.parse(exempt.stdout).podSecurity).toMatchObject({
      exemption: { by: "user", name: "ci-bot" },
      assumption: null,
      rejection: null,
    });
    const assumed = await runCli(args);
    expect(assumed.code).toBe(1);
    expect(JSON.parse(assumed.stdout).podSecurity.assumption).toContain("built-in defaults");
    const broken = file(
      "broken.yaml",
      "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: [{name: PodSecurity, configuration: {apiVersion: pod-security.admission.config.k8s.io/v1, kind: PodSecurityConfiguration, defaults: {enforce: strict}}}]\n",
    );
    const refused = await runCli([...args, "--admission-config", broken]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
  });

  test("the launcher explains a missing build", async () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), "portcullis-nobuild-"));
    const launcher = path.join(copy, "bin", "portcullis.mjs");
    const src = readFileSync(
      path.resolve(import.meta.dirname, "..", "bin", "portcullis.mjs"),
      "utf8",
    );
    const { mkdirSync } = await import("node:fs");
    mkdirSync(path.dirname(launcher));
    writeFileSync(launcher, src);
    const { spawnSync } = await import("node:child_process");
    const r = spawnSync(process.execPath, [launcher, "--version"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/npm run build:cli/);
  });
});

describe("--context against the real control plane", () => {
  let info: StackInfo;
  let hooks: WebhookServer;
  let ca: Buffer;
  let env: NodeJS.ProcessEnv;
  const suffix = `c${Date.now().toString(36)}`;
  const ns = `cli-${suffix}`;
  const mName = `cli-${suffix}-m`;
  const vName = `cli-${suffix}-v`;

  const admin = (method: string, p: string, body?: unknown) =>
    httpsRequest(`${info.server}${p}`, {
      method,
      token: info.tokens.admin,
      ca,
      body,
      timeoutMs: 30_000,
    });

  beforeAll(async () => {
    info = readStack();
    ca = readFileSync(info.caFile);
    env = { ...process.env, KUBECONFIG: info.kubeconfig };
    hooks = await startWebhookServer({ certFile: info.caFile, keyFile: info.caKeyFile });
    for (const h of ["m", "v1", "v2"]) hooks.program(h, { type: "allow" });
    const hook = (name: string, extra: Record<string, unknown>) => ({
      name: `${name}.${suffix}.cli.test`,
      clientConfig: { url: hooks.url(name), caBundle: hooks.caBundle },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      failurePolicy: "Fail",
      timeoutSeconds: 5,
      namespaceSelector: { matchLabels: { "cli-test": suffix } },
      ...extra,
    });
    const cm = [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ];
    const created = await Promise.all([
      admin("POST", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: ns, labels: { "cli-test": suffix } },
      }),
      admin("POST", `${G}/mutatingwebhookconfigurations`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: mName },
        webhooks: [hook("m", { rules: cm, reinvocationPolicy: "IfNeeded" })],
      }),
      admin("POST", `${G}/validatingwebhookconfigurations`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: vName },
        webhooks: [
          hook("v1", { rules: cm, objectSelector: { matchLabels: { app: "web" } } }),
          hook("v2", { rules: [{ ...cm[0], resources: ["secrets"] }] }),
        ],
      }),
    ]);
    for (const c of created) expect(c.status, c.body).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await admin("DELETE", `${G}/mutatingwebhookconfigurations/${mName}`);
    await admin("DELETE", `${G}/validatingwebhookconfigurations/${vName}`);
    await admin("DELETE", `/api/v1/namespaces/${ns}`);
    await hooks.close();
  });

  test("predict --context names exactly the webhooks the apiserver calls, in order", async () => {
    const cmFile = file(
      "cm.yaml",
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: ${ns}, labels: {app: web}}\ndata: {a: b}\n`,
    );
    const r = await runCli(
      [
        "predict",
        "--context",
        info.contexts.admin,
        "--object",
        cmFile,
        "--operation",
        "CREATE",
        "-o",
        "json",
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.request).toMatchObject({
      resource: "configmaps",
      namespace: ns,
      namespaceLabelsFrom: "cluster",
      namespaceLabels: { "cli-test": suffix, "kubernetes.io/metadata.name": ns },
    });
    // The context's own identity, from a SelfSubjectReview.
    expect(p.request.userInfo.username).toBe("admin");
    // The minor predicted for: the cluster's, from its /version.
    expect(p.kubernetes).toEqual({ minor: info.minor, source: "cluster", reported: null });
    const ours = (k: string) => k.includes(suffix);
    const predicted = p.calls
      .filter((c: { round: number; key: string }) => c.round === 0 && ours(c.key))
      .map((c: { hook: { name: string } }) => c.hook.name.split(".")[0]);
    expect(predicted).toEqual(["m", "v1"]);
    const skipped = p.skips.filter((s: { key: string }) => ours(s.key));
    expect(skipped).toMatchObject([{ code: "rules", hook: { name: `v2.${suffix}.cli.test` } }]);

    // The real apiserver, dry run: the config cache syncs within a second or two.
    const body = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "web", namespace: ns, labels: { app: "web" } },
      data: { a: "b" },
    };
    let recorded: string[] = [];
    for (let i = 0; i < 40 && recorded.length < 2; i++) {
      hooks.clearCalls();
      const res = await admin("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, body);
      expect(res.status, res.body).toBe(201);
      recorded = hooks.calls().map((c) => c.hook);
      if (recorded.length < 2) await new Promise((res) => setTimeout(res, 250));
    }
    expect(recorded).toEqual(predicted);
  });

  test("validate --context: stored objects, and files as updates of them", async () => {
    const stored = await runCli(["validate", "--context", info.contexts.viewer, "-o", "json"], {
      env,
    });
    expect(stored.code, stored.stderr).toBe(0);
    const report = JSON.parse(stored.stdout);
    const names = report.documents.map((d: { name: string }) => d.name);
    expect(names).toEqual(expect.arrayContaining([mName, vName]));
    expect(report.documents.find((d: { name: string }) => d.name === mName)).toMatchObject({
      source: `cluster ${info.contexts.viewer}`,
      outcome: "accepted",
      line: null,
    });

    const edited = file(
      "edited.yaml",
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ${vName}}
webhooks:
  - name: bad
    clientConfig: {url: "https://127.0.0.1:1/x"}
    sideEffects: None
    admissionReviewVersions: [v1]
`,
    );
    const upd = await runCli(
      ["validate", edited, "--context", info.contexts.viewer, "-o", "json"],
      { env },
    );
    expect(upd.code).toBe(1);
    expect(JSON.parse(upd.stdout).documents[0]).toMatchObject({
      operation: "update",
      outcome: "invalid",
    });
  });

  test("lint --context runs the cluster-dependent checks too", async () => {
    const r = await runCli(
      ["lint", "--context", info.contexts.viewer, "--fail-on", "critical", "-o", "json"],
      {
        env,
      },
    );
    expect([0, 1], r.stderr).toContain(r.code);
    const report = JSON.parse(r.stdout);
    expect(report.mode).toBe("live");
    expect(report.kubernetes).toEqual({ minor: info.minor, source: "cluster", reported: null });
    expect(report.ok).toBe(r.code === 0);
    expect(report.checks.run).toEqual(expect.arrayContaining(["L1", "L6", "L7", "L12"]));
    expect(report.summary.configurations).toBeGreaterThanOrEqual(2);
    // Our hooks call loopback URLs: L7 says so for each of them.
    const l7 = report.findings.filter(
      (f: { id: string; objects: { name: string }[] }) =>
        f.id === "L7" && f.objects.some((o) => o.name === mName || o.name === vName),
    );
    expect(l7.length).toBe(3);
  });

  test("a missing context is a clear error, exit 2", async () => {
    const r = await runCli(["lint", "--context", "nope"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /context "nope" is not in the kubeconfig .*contexts: .*admin@portcullis-local/,
    );
  });
});
