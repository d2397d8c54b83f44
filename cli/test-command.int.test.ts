/**
 * `portcullis test` as the built command: exit codes and JUnit XML on files, and with --context
 * --dry-run against the real control plane, where the apiserver's answers must agree with the
 * offline verdicts wherever both decide, and the cases a dry run cannot be sent for are listed.
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

const CONFIG = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: need-owner}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  validations:
    - expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels"
      message: configmaps need an owner label
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: need-owner}
spec: {policyName: need-owner, validationActions: [Deny]}
`;

const suite = (cases: string) => `apiVersion: portcullis.dev/v1alpha1
kind: AdmissionTestSuite
configuration: [config.yaml]
cases:
${cases}`;

const PASSING = `  - name: an owned configmap is admitted
    request:
      operation: CREATE
      namespace: a
      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {owner: me}}}
    expect:
      admitted: true
      calls: [ValidatingAdmissionPolicy/need-owner/need-owner]
  - name: a secret reaches nothing
    request:
      operation: CREATE
      namespace: a
      object: {apiVersion: v1, kind: Secret, metadata: {name: s}}
    expect:
      calls: []
      skipped: [{hook: ValidatingAdmissionPolicy/need-owner, reason: rules}]
`;

const FAILING = `  - name: an unowned configmap is admitted, wrongly expected
    request:
      operation: CREATE
      namespace: a
      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
    expect:
      admitted: true
`;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-test-int-"));
  file("config.yaml", CONFIG);
  await ensureCliBuilt();
}, 120_000);

describe("on files", () => {
  test("exit 0 when every case passes, 1 when one fails, 2 for a broken file; JUnit XML", async () => {
    const ok = await runCli(["test", file("ok.yaml", suite(PASSING))]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^--- PASS: an owned configmap is admitted \(\d\.\d\ds\)$/m);
    expect(ok.stdout).toMatch(/^PASS\nok {2}\t2 cases: 2 passed, 0 failed, 0 skipped, 0 errors\t/m);

    const junit = path.join(dir, "junit.xml");
    const bad = await runCli([
      "test",
      file("bad.yaml", suite(PASSING + FAILING)),
      "--junit",
      junit,
      "-o",
      "json",
    ]);
    expect(bad.code, bad.stderr).toBe(1);
    const report = JSON.parse(bad.stdout);
    expect(report).toMatchObject({
      schema: "portcullis.test/v1",
      ok: false,
      summary: { total: 3, passed: 2, failed: 1 },
    });
    expect(report.cases[2].checks).toEqual([
      {
        expectation: "admitted",
        status: "fail",
        message: expect.stringContaining(
          "ValidatingAdmissionPolicy 'need-owner' with binding 'need-owner' denied request: configmaps need an owner label",
        ),
      },
    ]);
    const xml = readFileSync(junit, "utf8");
    expect(xml).toContain('<testsuites name="portcullis test" tests="3" failures="1" errors="0"');
    expect(xml).toMatch(
      /<testcase name="an unowned configmap is admitted, wrongly expected" classname="bad.yaml" [^>]*>\n {6}<failure message="[^"]*bad\.yaml:\d+: admitted: refused, expected admitted/,
    );
    expect(xml.match(/<testcase /g)).toHaveLength(3);

    const broken = await runCli([
      "test",
      file("broken.yaml", suite(PASSING).replace("operation: CREATE", "operation: MAKE")),
    ]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yaml:7:18: cases\[0\]\.request\.operation: /);
  });

  test("test import writes a suite and reports what did not map", async () => {
    const kaptest = path.resolve(
      import.meta.dirname,
      "..",
      "lib/admission/testing/fixtures/kaptest/vap-with-params.test/kaptest.yaml",
    );
    const out = path.join(dir, "imported.yaml");
    const r = await runCli(["test", "import", "--from", "kaptest", kaptest, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not mapped: policy deployment-replicas: kaptest never evaluates/);
    const run = await runCli(["test", out]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/skipped \(rules\)/);
  });
});

describe("--context --dry-run against the real control plane", () => {
  let info: StackInfo;
  let hooks: WebhookServer;
  let ca: Buffer;
  let env: NodeJS.ProcessEnv;
  const suffix = `t${Date.now().toString(36)}`;
  const ns = `test-${suffix}`;
  const policy = `owner-${suffix}`;
  const vName = `test-${suffix}-v`;
  const gate = `gate.${suffix}.cli.test`;
  const risky = `risky.${suffix}.cli.test`;

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
    hooks.program("gate", {
      type: "choose",
      choose: (req) =>
        (req.object as { metadata?: { name?: string } } | undefined)?.metadata?.name === "blocked"
          ? { type: "deny", message: "the gate says no" }
          : { type: "allow" },
    });
    hooks.program("risky", { type: "allow" });
    const rule = (resources: string[]) => [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources },
    ];
    const hook = (name: string, url: string, resources: string[], sideEffects: string) => ({
      name,
      clientConfig: { url, caBundle: hooks.caBundle },
      sideEffects,
      admissionReviewVersions: ["v1"],
      failurePolicy: "Fail",
      timeoutSeconds: 5,
      namespaceSelector: { matchLabels: { "portcullis-test": suffix } },
      rules: rule(resources),
    });
    const created = await Promise.all([
      admin("POST", "/api/v1/namespaces", {
        metadata: { name: ns, labels: { "portcullis-test": suffix } },
      }),
      admin("POST", `${G}/validatingadmissionpolicies`, {
        metadata: { name: policy },
        spec: {
          failurePolicy: "Fail",
          matchConstraints: {
            resourceRules: rule(["configmaps"]),
            namespaceSelector: { matchLabels: { "portcullis-test": suffix } },
          },
          validations: [
            {
              expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
              messageExpression: "'configmap ' + object.metadata.name + ' needs an owner label'",
            },
          ],
        },
      }),
      admin("POST", `${G}/validatingadmissionpolicybindings`, {
        metadata: { name: policy },
        spec: { policyName: policy, validationActions: ["Deny"] },
      }),
      admin("POST", `${G}/validatingwebhookconfigurations`, {
        metadata: { name: vName },
        webhooks: [
          hook(gate, hooks.url("gate"), ["configmaps"], "None"),
          hook(risky, hooks.url("risky"), ["secrets"], "NoneOnDryRun"),
        ],
      }),
    ]);
    for (const c of created) expect(c.status, c.body).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await admin("DELETE", `${G}/validatingwebhookconfigurations/${vName}`);
    await admin("DELETE", `${G}/validatingadmissionpolicybindings/${policy}`);
    await admin("DELETE", `${G}/validatingadmissionpolicies/${policy}`);
    await admin("DELETE", `/api/v1/namespaces/${ns}`);
    await hooks?.close();
  });

  test("the dry run's verdicts agree with the offline run's wherever both decide", async () => {
    // Sent for real once the policy and the webhook are in force (their caches sync in seconds).
    await expect
      .poll(
        async () => {
          const unowned = await admin("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
            metadata: { name: "probe" },
          });
          return unowned.status === 422 || unowned.status === 403 ? hooks.calls("gate").length : -1;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBeGreaterThanOrEqual(0);
    await expect
      .poll(
        async () => {
          await admin("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
            metadata: { name: "probe", labels: { owner: "x" } },
          });
          return hooks.calls("gate").length;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBeGreaterThan(0);
    const vap = `ValidatingAdmissionPolicy/${policy}/${policy}`;
    const gateRef = `ValidatingWebhookConfiguration/${vName}/${gate}`;
    const cm = (name: string, labels: string) =>
      `{apiVersion: v1, kind: ConfigMap, metadata: {name: ${name}, namespace: ${ns}${labels}}}`;
    const text = `apiVersion: portcullis.dev/v1alpha1
kind: AdmissionTestSuite
cases:
  - name: owned, the gate allows
    request: {operation: CREATE, object: ${cm("fine", ", labels: {owner: me}")}}
    expect:
      calls: [${vap}, ${gateRef}]
      policies: [{hook: ${vap}, result: allowed}]
      admitted: true
      dryRun: {allowed: true, webhooks: [{hook: ${gateRef}, allowed: true}]}
  - name: unowned, the policy refuses before the gate
    request: {operation: CREATE, object: ${cm("unowned", "")}}
    expect:
      admitted: false
      policies: [{hook: ${vap}, result: denied, message: "configmap unowned needs an owner label"}]
      dryRun: {allowed: false, message: "needs an owner label"}
  - name: owned, the gate refuses
    request: {operation: CREATE, object: ${cm("blocked", ", labels: {owner: me}")}}
    expect:
      policies: [{hook: ${vap}, result: allowed}]
      admitted: false
      dryRun: {webhooks: [{hook: ${gateRef}, allowed: false, message: "the gate says no"}]}
  - name: a secret reaches a webhook whose side effects forbid nothing on dry run
    request: {operation: CREATE, object: {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: ${ns}}}}
    expect:
      calls: [ValidatingWebhookConfiguration/${vName}/${risky}]
      admitted: true
  - name: acting as someone else is not sent
    request:
      operation: CREATE
      object: ${cm("other", ", labels: {owner: me}")}
      userInfo: {username: someone-else, groups: [system:authenticated]}
    expect:
      notCalled: [ValidatingWebhookConfiguration/${vName}/${risky}]
`;
    const tests = file("live.yaml", text);
    const offline = await runCli(["test", tests, "--context", info.contexts.admin, "-o", "json"], {
      env,
    });
    expect(offline.code, offline.stderr).toBe(0);
    const off = JSON.parse(offline.stdout);
    expect(off.cases.map((c: { status: string }) => c.status)).toEqual([
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
    ]);
    // Offline, only the policy's refusal decides admission; the webhooks' answers do not.
    expect(off.cases.map((c: { admitted?: boolean }) => c.admitted ?? null)).toEqual([
      null,
      false,
      null,
      null,
      null,
    ]);

    const junit = path.join(dir, "live.xml");
    const dry = await runCli(
      [
        "test",
        tests,
        "--context",
        info.contexts.admin,
        "--dry-run",
        "--junit",
        junit,
        "-o",
        "json",
      ],
      { env },
    );
    expect(dry.code, dry.stdout).toBe(0);
    const on = JSON.parse(dry.stdout);
    expect(on.cases.map((c: { status: string }) => c.status)).toEqual([
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
    ]);
    expect(on.dryRun).toEqual({
      sent: 4,
      skipped: [
        {
          case: "acting as someone else is not sent",
          at: expect.stringMatching(/live\.yaml:\d+$/) as string,
          reason: "the case acts as someone-else; a dry run is sent as admin",
        },
      ],
    });
    // Wherever both decide, they agree.
    let both = 0;
    on.cases.forEach((c: { admitted?: boolean; dryRun?: { kind: string; allowed?: boolean } }) => {
      if (c.admitted === undefined || c.dryRun?.kind !== "answered") return;
      both++;
      expect(c.dryRun.allowed).toBe(c.admitted);
    });
    expect(both).toBe(1);
    expect(on.cases[2].dryRun).toMatchObject({ kind: "answered", allowed: false });
    expect(readFileSync(junit, "utf8")).toContain('tests="5" failures="0" errors="0" skipped="0"');
  });
});
