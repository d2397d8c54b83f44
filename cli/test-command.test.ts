/** `portcullis test` in process on the committed upstream examples (offline). */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommandLine, type TestCommand } from "./args";
import { dryRunBlockers, runTest } from "./commands/test";
import { formatTestText, junitXml } from "./output/test";

const FIXTURES = path.resolve(import.meta.dirname, "..", "lib/admission/testing/fixtures");

function command(args: string[]): TestCommand {
  const c = parseCommandLine(["test", ...args]);
  if (c.command !== "test") throw new Error(c.command);
  return c;
}

describe("portcullis test on the imported kat and kaptest examples", () => {
  it("runs every case against the suite's own configuration", async () => {
    const r = await runTest(
      command([path.join(FIXTURES, "kat"), path.join(FIXTURES, "kaptest"), "--run", "."]),
    );
    const by = Object.fromEntries(r.cases.map((c) => [`${c.suite}: ${c.name}`, c.status]));
    expect(by).toEqual({
      "block-team-ci-service-accounts: block-team-ci.allowed-core-infra.allow": "pass",
      "block-team-ci-service-accounts: block-team-ci.blocked-team-ci.deny": "pass",
      "namespace-selector-binding: namespace-selector-binding-test.dev-namespace.allow": "pass",
      "namespace-selector-binding: namespace-selector-binding-test.no-label-namespace.allow":
        "pass",
      "namespace-selector-binding: namespace-selector-binding-test.prod-namespace.deny": "pass",
      "replica-limit-with-params: replica-limit-params.exceeds-limit.deny": "pass",
      // The apiserver refuses with "no params found", not the policy's first message.
      "replica-limit-with-params: replica-limit-params.no-params.deny": "fail",
      "replica-limit-with-params: replica-limit-params.within-limit.allow": "pass",
      "sidecar-injection: sidecar-injection.adding-istio-sidecar": "pass",
      "sidecar-injection: sidecar-injection.skip-without-label": "pass",
      // kaptest's rules name the core group for deployments: never called.
      "vap-with-namespaces.test: deployment-replicas: 1 admit ok": "fail",
      "vap-with-namespaces.test: deployment-replicas: 2 deny bad": "fail",
      "vap-with-params.test: deployment-replicas: 1 admit ok": "fail",
      "vap-with-params.test: deployment-replicas: 2 deny bad": "fail",
    });
    expect(r.ok).toBe(false);
    expect(r.summary).toMatchObject({ total: 14, passed: 9, failed: 5, skipped: 0, errors: 0 });
    const noParams = r.cases.find((c) => c.name === "replica-limit-params.no-params.deny");
    expect(noParams?.checks.find((c) => c.status === "fail")?.message).toMatch(
      /no params found for policy binding with `Deny` parameterNotFoundAction/,
    );
    const skipped = r.cases.find((c) => c.name === "deployment-replicas: 1 admit ok");
    expect(skipped?.checks[0]?.message).toMatch(
      /skipped \(rules\).*API group apps is not in \[""\]/,
    );

    const text = formatTestText(r);
    expect(text).toMatch(/^--- PASS: block-team-ci\.allowed-core-infra\.allow \(\d+\.\d\ds\)$/m);
    expect(text).toMatch(
      /^--- FAIL: replica-limit-params\.no-params\.deny \(\d+\.\d\ds\)\n {4}\S+replica-limit-with-params\.portcullis\.yaml:\d+: policies\[0\]: /m,
    );
    expect(text).toMatch(
      /\nFAIL\nFAIL\t14 cases: 9 passed, 5 failed, 0 skipped, 0 errors\t\d+\.\d\ds\n$/,
    );

    const xml = junitXml(r);
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="portcullis test" tests="14" failures="5" errors="0" skipped="0"/,
    );
    expect(xml.match(/<testsuite /g)).toHaveLength(6);
    expect(xml.match(/<testcase /g)).toHaveLength(14);
    expect(xml.match(/<failure message=/g)).toHaveLength(5);
    expect(xml).toContain("no params found for policy binding with `Deny` parameterNotFoundAction");
  });

  it("--run keeps the matching cases only; a file without configuration is an input error", async () => {
    const r = await runTest(command([path.join(FIXTURES, "kat"), "--run", "sidecar"]));
    expect(r.cases.map((c) => c.status)).toEqual(["pass", "pass"]);
    expect(r.ok).toBe(true);
    await expect(
      runTest(
        command([path.join(FIXTURES, "kat", "validating/replica-limit-with-params/binding.yaml")]),
      ),
    ).rejects.toThrow(/kind: .*|apiVersion/);
  });

  it("sends no dry run that reaches a webhook with side effects", () => {
    const hook = (name: string, sideEffects?: string) => ({
      name,
      clientConfig: {},
      admissionReviewVersions: ["v1"],
      ...(sideEffects ? { sideEffects } : {}),
    });
    const snapshot = {
      validatingWebhookConfigurations: [
        { metadata: { name: "c" }, webhooks: [hook("a", "None"), hook("b", "Some"), hook("d")] },
      ],
      mutatingWebhookConfigurations: [
        { metadata: { name: "m" }, webhooks: [hook("x", "NoneOnDryRun")] },
      ],
    } as unknown as Parameters<typeof dryRunBlockers>[0];
    expect(
      dryRunBlockers(snapshot, [
        "ValidatingWebhookConfiguration/c/a",
        "ValidatingWebhookConfiguration/c/b",
        "ValidatingWebhookConfiguration/c/d",
        "MutatingWebhookConfiguration/m/x",
      ]),
    ).toEqual([
      "ValidatingWebhookConfiguration/c/b declares sideEffects Some",
      "ValidatingWebhookConfiguration/c/d declares sideEffects Unknown",
    ]);
  });

  it("parses its flags", () => {
    expect(() => parseCommandLine(["test"])).toThrow(/test needs FILE/);
    expect(() => parseCommandLine(["test", "x.yaml", "--dry-run"])).toThrow(/--context/);
    expect(parseCommandLine(["test", "import", "--from", "kat", "dir"])).toMatchObject({
      command: "test-import",
      from: "kat",
      input: "dir",
    });
    expect(() => parseCommandLine(["test", "import", "--from", "gator", "x"])).toThrow(
      /kat, kaptest/,
    );
  });
});

describe("portcullis test --kubernetes-version", () => {
  // cel-go v0.26.0 (1.35, 1.36) finds '' at an offset past the end there; v0.29.2 (1.37) at the end.
  it("evaluates the policies' CEL as that minor's cel-go (default: the newest)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "portcullis-test-minor-"));
    writeFileSync(
      path.join(dir, "policy.yaml"),
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: index-of}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "'abc'.indexOf('', 5) == 3", message: "as 1.37"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: index-of}
spec: {policyName: index-of, validationActions: [Deny]}
`,
    );
    const suite = path.join(dir, "suite.portcullis.yaml");
    writeFileSync(
      suite,
      `apiVersion: portcullis.dev/v1alpha1
kind: AdmissionTestSuite
metadata: {name: minor}
configuration: [policy.yaml]
cases:
  - name: a configmap
    request:
      operation: CREATE
      namespace: default
      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
    expect:
      admitted: true
`,
    );
    const status = async (...flags: string[]) =>
      (await runTest(command([suite, ...flags]))).cases.map((c) => c.status);
    expect(await status()).toEqual(["pass"]);
    expect(await status("--kubernetes-version", "1.37")).toEqual(["pass"]);
    expect(await status("--kubernetes-version", "1.36")).toEqual(["fail"]);
  });
});
