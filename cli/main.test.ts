/**
 * The JSON schemas of every command, through main() (the same code the built binary runs) on
 * small fixtures: key sets are pinned so a change to the documented schema fails here.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { main } from "./main";

let dir = "";
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err };
}

const HOOKS = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: deny-pods
webhooks:
  - name: deny.example.com
    clientConfig: {url: "https://127.0.0.1:9443/v"}
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
    sideEffects: None
    admissionReviewVersions: [v1]
    namespaceSelector: {matchLabels: {env: prod}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: inject}
webhooks:
  - name: inject.example.com
    clientConfig: {url: "https://127.0.0.1:9443/m"}
    rules: [{operations: [CREATE], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]
    sideEffects: None
    admissionReviewVersions: [v1]
    reinvocationPolicy: IfNeeded
`;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-cli-"));
});

describe("validate", () => {
  test("an invalid document: exit 1, positions and the apiserver's messages", async () => {
    const f = file(
      "bad.yaml",
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: bad}
webhooks:
  - name: short
    clientConfig: {url: "https://x.example.com/"}
    sideEffects: None
    admissionReviewVersions: [v1]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
`,
    );
    const r = await run(["validate", f, "-o", "json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(Object.keys(report).sort()).toEqual(["documents", "notices", "ok", "schema", "summary"]);
    expect(report.schema).toBe("portcullis.validate/v1");
    expect(report.summary).toEqual({
      documents: 2,
      accepted: 0,
      invalid: 1,
      skipped: 1,
      errors: 1,
      warnings: 0,
    });
    const [doc, skipped] = report.documents;
    expect(Object.keys(doc).sort()).toEqual(
      [
        "apiVersion",
        "document",
        "issues",
        "item",
        "kind",
        "line",
        "name",
        "operation",
        "outcome",
        "source",
        "status",
      ].sort(),
    );
    expect(doc).toMatchObject({
      source: f,
      document: 0,
      line: 1,
      outcome: "invalid",
      operation: "create",
    });
    expect(doc.status).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
    );
    expect(doc.issues).toEqual([
      {
        severity: "error",
        field: "webhooks[0].name",
        type: "FieldValueInvalid",
        message:
          'Invalid value: "short": should be a domain with at least three segments separated by dots',
        source: "admission",
        line: 5,
        column: 11,
        endLine: 5,
        endColumn: 16,
      },
    ]);
    expect(skipped).toMatchObject({ kind: "ConfigMap", outcome: "skipped", line: 10 });
    expect(report.notices).toEqual([
      { at: `${f}:10`, message: "skipped: ConfigMap v1 is not an admission configuration" },
    ]);
  });

  test("text output names file:line:col", async () => {
    const f = file("syntax.yaml", "apiVersion: v1\nkind: [\n");
    const r = await run(["validate", f]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      new RegExp(
        `^${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:1: error: .*\\(YAMLSyntax\\)`,
        "m",
      ),
    );
  });

  test("a clean directory exits 0; a missing file exits 2", async () => {
    const ok = await run(["validate", file("ok.yaml", HOOKS)]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/2 documents: 2 valid, 0 invalid, 0 skipped/);
    const missing = await run(["validate", path.join(dir, "nope.yaml")]);
    expect(missing).toMatchObject({ code: 2, out: "" });
    expect(missing.err).toMatch(/cannot read .*nope\.yaml: no such file or directory/);
  });

  test("unknown kinds in the admission group are errors, not skips", async () => {
    const f = file(
      "typo.yaml",
      "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfigration\nmetadata: {name: x}\n",
    );
    const r = JSON.parse((await run(["validate", f, "-o", "json"])).out);
    expect(r.documents[0]).toMatchObject({ outcome: "decode-error" });
    expect(r.documents[0].issues[0]).toMatchObject({ field: "apiVersion", line: 1 });
  });
});

describe("lint", () => {
  test("schema, --fail-on and exit codes", async () => {
    const f = file("hooks.yaml", HOOKS);
    const high = await run(["lint", f, "-o", "json"]);
    const report = JSON.parse(high.out);
    expect(Object.keys(report).sort()).toEqual(
      [
        "checks",
        "failOn",
        "findings",
        "kubernetes",
        "mode",
        "notices",
        "ok",
        "schema",
        "summary",
      ].sort(),
    );
    expect(report).toMatchObject({ schema: "portcullis.lint/v1", mode: "offline", failOn: "high" });
    expect(report.kubernetes).toEqual({ minor: "1.37", source: "default", reported: null });
    const older = JSON.parse(
      (await run(["lint", f, "-o", "json", "--kubernetes-version", "1.36"])).out,
    );
    expect(older.kubernetes).toEqual({ minor: "1.36", source: "flag", reported: null });
    // The text report names the minor too.
    expect((await run(["lint", f, "--kubernetes-version", "1.36"])).out).toContain(
      "assumed: Kubernetes 1.36 (chosen)",
    );
    expect((await run(["lint", f])).out).toContain(
      "assumed: Kubernetes 1.37 (the newest; the cluster's version is not known)",
    );
    expect(report.checks.run).toContain("L5");
    expect(report.checks.run).toEqual(expect.arrayContaining(["L1", "L6"]));
    expect(report.checks.notRun.map((c: { ids: string[] }) => c.ids.join("/"))).toEqual([
      "L7",
      "L12",
      "L14",
    ]);
    const f0 = report.findings[0];
    expect(Object.keys(f0).sort()).toEqual([
      "explanation",
      "fix",
      "id",
      "objects",
      "severity",
      "title",
    ]);
    const worst = report.findings.map((x: { severity: string }) => x.severity);
    const failsHigh = worst.includes("critical") || worst.includes("high");
    expect(high.code).toBe(failsHigh ? 1 : 0);
    const medium = await run(["lint", f, "--fail-on", "medium"]);
    expect(medium.code).toBe(
      worst.some((s: string) => ["critical", "high", "medium"].includes(s)) ? 1 : 0,
    );
  });

  test("L19: a policy and a webhook named like the apiserver's own audit records fail the run", async () => {
    const f = file(
      "forge.yaml",
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: validation.policy.admission.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  validations: [{expression: "true"}]
  auditAnnotations: [{key: validation_failure, valueExpression: "'[]'"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: audit}
webhooks:
  - name: apiserver.latency.k8s.io
    clientConfig: {url: "https://127.0.0.1:9443/v"}
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
    sideEffects: None
    admissionReviewVersions: [v1]
    failurePolicy: Ignore
`,
    );
    const r = await run(["lint", f, "-o", "json"]);
    const report = JSON.parse(r.out);
    expect(report.checks.run).toContain("L19");
    expect(
      report.findings
        .filter((x: { id: string }) => x.id === "L19")
        .map((x: { objects: Array<{ kind: string; name: string }> }) => [
          x.objects[0]?.kind,
          x.objects[0]?.name,
        ]),
    ).toEqual([
      ["ValidatingWebhookConfiguration", "audit"],
      ["ValidatingAdmissionPolicy", "validation.policy.admission.k8s.io"],
    ]);
    expect(r.code).toBe(1);
  });

  test("engine objects in the input: findings carry the engine and its policy", async () => {
    const f = file(
      "engines.yaml",
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: clusterwide-slow
  labels: {app.kubernetes.io/part-of: kubewarden}
  annotations: {kubewardenPolicyName: slow, kubewardenPolicyNamespace: ""}
webhooks:
  - name: clusterwide-slow.kubewarden.admission
    clientConfig: {service: {namespace: kubewarden, name: policy-server-default, path: /validate/clusterwide-slow}}
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
    namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kubewarden]}]}
    sideEffects: None
    admissionReviewVersions: [v1]
    failurePolicy: Ignore
    timeoutSeconds: 10
---
apiVersion: policies.kubewarden.io/v1
kind: ClusterAdmissionPolicy
metadata: {name: slow}
spec: {module: "file:///p.wasm", rules: [], mutating: false, timeoutSeconds: 10, timeoutEvalSeconds: 15}
---
apiVersion: policies.kubewarden.io/v9
kind: AdmissionPolicy
metadata: {name: future, namespace: team}
spec: {}
`,
    );
    const r = await run(["lint", f, "-o", "json", "--fail-on", "medium"]);
    const report = JSON.parse(r.out);
    expect(report.checks.run).toEqual(expect.arrayContaining(["L20", "L21", "L22", "L23", "L24"]));
    const l23 = report.findings.find((x: { id: string }) => x.id === "L23");
    const policy = {
      engine: "kubewarden",
      apiVersion: "policies.kubewarden.io/v1",
      kind: "ClusterAdmissionPolicy",
      name: "slow",
    };
    expect(l23).toMatchObject({ engine: "kubewarden", sourcePolicy: policy });
    expect(l23.objects[1]).toMatchObject({
      kind: "ValidatingWebhookConfiguration",
      name: "clusterwide-slow",
      hook: "clusterwide-slow.kubewarden.admission",
      engine: "kubewarden",
      sourcePolicy: policy,
    });
    expect(report.notices).toContainEqual({
      at: "lint",
      message:
        "AdmissionPolicy team/future (kubewarden) not read: AdmissionPolicy is read in policies.kubewarden.io/v1, policies.kubewarden.io/v1alpha2; this object is policies.kubewarden.io/v9",
    });
    expect(r.code).toBe(1);
    const text = await run(["lint", f, "--fail-on", "medium"]);
    expect(text.out).toContain(
      "ValidatingWebhookConfiguration clusterwide-slow / clusterwide-slow.kubewarden.admission [kubewarden: ClusterAdmissionPolicy slow]",
    );
  });

  test("--namespaces must hold namespaces", async () => {
    const r = await run(["lint", file("h2.yaml", HOOKS), "--namespaces", file("none.yaml", HOOKS)]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/holds no v1 Namespace objects/);
  });
});

describe("predict", () => {
  test("NamespaceLifecycle: a create in a --namespaces Namespace whose phase is Terminating, and a DELETE of kube-system, are refused before any hook", async () => {
    const cfg = file("cfg-nl.yaml", HOOKS);
    const namespaces = file(
      "ns-nl.yaml",
      [
        "apiVersion: v1",
        "kind: Namespace",
        "metadata: {name: team}",
        "status: {phase: Terminating}",
        "---",
        "apiVersion: v1",
        "kind: Namespace",
        "metadata: {name: other}",
        "status: {phase: Active}",
        "",
      ].join("\n"),
    );
    const pod = (ns: string) =>
      file(
        `pod-nl-${ns}.yaml`,
        `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: ${ns}}\n`,
      );
    const base = ["predict", "--config", cfg, "--namespaces", namespaces, "--operation"];
    const r = await run([...base, "CREATE", "--object", pod("team"), "-o", "json"]);
    expect(r.code).toBe(1);
    const p = JSON.parse(r.out);
    expect(p.admitted).toBe(false);
    expect(p.calls).toEqual([]);
    expect(p.rejectedBeforeHooks).toEqual({
      plugin: "NamespaceLifecycle",
      status: 403,
      message:
        'pods "web" is forbidden: unable to create new content in namespace team because it is being terminated',
    });
    const active = JSON.parse(
      (await run([...base, "CREATE", "--object", pod("other"), "-o", "json"])).out,
    );
    expect(active.rejectedBeforeHooks).toBeNull();
    expect(active.calls.length).toBeGreaterThan(0);

    const ns = file(
      "ns-ks.yaml",
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system}\n",
    );
    const text = await run(["predict", "--config", cfg, "--operation", "DELETE", "--object", ns]);
    expect(text.out).toContain(
      'REJECTED by NamespaceLifecycle before any hook: 403 namespaces "kube-system" is forbidden: this namespace may not be deleted',
    );
  });

  test("external admission hooks from files are predicted in a section of their own", async () => {
    const cfg = file(
      "eahc.yaml",
      [
        "apiVersion: admissionregistration.k8s.io/v1alpha1",
        "kind: ExternalAdmissionHookConfiguration",
        "metadata: {name: old}",
        "externalAdmissionHooks:",
        "  - name: image.policy.example.com",
        "    clientConfig: {service: {namespace: hooks, name: image}, caBundle: Y2E=}",
        '    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]',
        "  - name: guard.example.com",
        "    clientConfig: {service: {namespace: hooks, name: guard}, caBundle: Y2E=}",
        '    rules: [{operations: [DELETE], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]',
        "    failurePolicy: Fail",
        "",
      ].join("\n"),
    );
    const pod = file(
      "pod-e.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team}\n",
    );
    const args = ["predict", "--config", cfg, "--object", pod, "--operation", "CREATE"];
    const r = await run([...args, "-o", "json"]);
    expect(r.code).toBe(0);
    const p = JSON.parse(r.out);
    expect(p.calls).toEqual([]);
    expect(p.legacy).toHaveLength(1);
    expect(p.legacy[0]).toMatchObject({
      id: "external-admission-hooks",
      calls: [{ name: "image.policy.example.com", failurePolicy: "Ignore", timeoutSeconds: null }],
      skips: [{ name: "guard.example.com", code: "rules" }],
    });
    const text = await run(args);
    expect(text.out).toContain("External admission hooks (1.7–1.8)");
    expect(text.out).toContain(
      "1. old / image.policy.example.com (failurePolicy Ignore, matchPolicy Exact)",
    );
  });

  test("schema: calls in order with a possible round 1, skips with reasons", async () => {
    const cfg = file("cfg.yaml", HOOKS);
    const pod = file(
      "pod.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team, labels: {app: web}}\n",
    );
    const r = await run([
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
    expect(r.code).toBe(0);
    const p = JSON.parse(r.out);
    expect(Object.keys(p).sort()).toEqual(
      [
        "admitted",
        "alsoFailing",
        "calls",
        "exclusions",
        "failure",
        "indeterminate",
        "kubernetes",
        "legacy",
        "neverSent",
        "notices",
        "podSecurity",
        "rejectedBeforeHooks",
        "request",
        "schema",
        "skips",
        "worstCaseLatencySeconds",
      ].sort(),
    );
    // Offline without --kubernetes-version: the newest minor, and the report says it assumed it.
    expect(p.kubernetes).toEqual({ minor: "1.37", source: "default", reported: null });
    expect(p.request).toEqual({
      operation: "CREATE",
      group: "",
      version: "v1",
      resource: "pods",
      subresource: "",
      kind: { group: "", version: "v1", kind: "Pod" },
      namespace: "team",
      name: "web",
      dryRun: false,
      userInfo: {
        username: "kubernetes-admin",
        groups: ["system:masters", "system:authenticated"],
      },
      namespaceLabels: { "kubernetes.io/metadata.name": "team" },
      namespaceLabelsFrom: "assumed",
    });
    expect(p.calls.map((c: { key: string; round: number }) => `${c.round}:${c.key}`)).toEqual([
      "0:MutatingWebhookConfiguration:inject/inject.example.com/0",
      "1:MutatingWebhookConfiguration:inject/inject.example.com/0",
    ]);
    expect(p.calls[1]).toMatchObject({
      certainty: "possible",
      reinvocation: { kind: "round-one-change" },
    });
    expect(p.skips).toHaveLength(1);
    expect(p.skips[0]).toMatchObject({
      stage: "validating-webhook",
      code: "namespace-selector",
      hook: {
        source: "ValidatingWebhookConfiguration",
        configuration: "deny-pods",
        name: "deny.example.com",
        position: 0,
      },
    });
    expect(p.skips[0].message).toMatch(
      /namespaceSelector \{env=prod\} does not match namespace team/,
    );
    expect(p.worstCaseLatencySeconds).toBe(20);
    expect(p.exclusions).toEqual({ webhooks: null, policies: null });

    const prod = JSON.parse(
      (
        await run([
          "predict",
          "--config",
          cfg,
          "--object",
          pod,
          "--operation",
          "CREATE",
          "--namespace-labels",
          "env=prod",
          "-o",
          "json",
        ])
      ).out,
    );
    expect(prod.calls.map((c: { stage: string }) => c.stage)).toEqual([
      "mutating-webhook",
      "mutating-webhook",
      "validating-webhook",
    ]);
    expect(prod.request.namespaceLabelsFrom).toBe("flag");
  });

  test("DELETE: the object given is the old object, so objectSelector sees its labels", async () => {
    const cfg = file(
      "del.yaml",
      HOOKS.replace("operations: [CREATE]", "operations: [DELETE]").replace(
        "sideEffects: None\n    admissionReviewVersions: [v1]\n    namespaceSelector",
        "sideEffects: None\n    admissionReviewVersions: [v1]\n    objectSelector: {matchLabels: {app: web}}\n    namespaceSelector",
      ),
    );
    const pod = file(
      "pod2.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team, labels: {app: web}}\n",
    );
    const r = JSON.parse(
      (
        await run([
          "predict",
          "--config",
          cfg,
          "--object",
          pod,
          "--operation",
          "DELETE",
          "--namespace-labels",
          "env=prod",
          "-o",
          "json",
        ])
      ).out,
    );
    expect(r.calls.map((c: { key: string }) => c.key)).toEqual([
      "ValidatingWebhookConfiguration:deny-pods/deny.example.com/0",
    ]);
  });

  test("a Scale body needs --resource; missing inputs exit 2", async () => {
    const cfg = file("cfg2.yaml", HOOKS);
    const scale = file(
      "scale.yaml",
      "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: team}\n",
    );
    const args = [
      "predict",
      "--config",
      cfg,
      "--object",
      scale,
      "--operation",
      "UPDATE",
      "--subresource",
      "scale",
    ];
    const noRes = await run(args);
    expect(noRes.code).toBe(2);
    expect(noRes.err).toMatch(/name one with --resource/);
    const ok = JSON.parse(
      (await run([...args, "--resource", "deployments.apps", "-o", "json"])).out,
    );
    expect(ok.request).toMatchObject({
      group: "apps",
      resource: "deployments",
      subresource: "scale",
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    });
    const bad = await run([
      "predict",
      "--config",
      cfg,
      "--object",
      file("bad.yaml", "a: [\n"),
      "--operation",
      "CREATE",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/bad\.yaml:2:1: malformed YAML/);
  });
});

describe("predict --object -", () => {
  test("reads the object from standard input", async () => {
    const { readObject } = await import("./commands/predict");
    const { sourceFromBytes } = await import("./input");
    const stdin = async () =>
      sourceFromBytes("<stdin>", Buffer.from("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n"));
    expect(await readObject("-", "--object", stdin)).toMatchObject({ kind: "Pod" });
    const two = async () => sourceFromBytes("<stdin>", Buffer.from("a: 1\n---\nb: 2\n"));
    await expect(readObject("-", "--object", two)).rejects.toThrow(
      "--object <stdin> holds 2 objects; give it exactly one",
    );
  });

  test("refuses standard input named twice", async () => {
    const cfg = file("cfg-stdin.yaml", HOOKS);
    const r = await run([
      "predict",
      "--config",
      cfg,
      "--object",
      "-",
      "--old-object",
      "-",
      "--operation",
      "UPDATE",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("standard input is read once");
  });
});
