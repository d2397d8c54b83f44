import { describe, expect, it } from "vitest";
import {
  formatHookRef,
  formatTestFileError,
  parseHookRef,
  parseTestFile,
  serializeTestFile,
  type TestCase,
} from "./format";

const SUITE = `apiVersion: portcullis.dev/v1alpha1
kind: AdmissionTestSuite
metadata:
  name: team-a
namespaces:
  team-a: { team: a }
cases:
  - name: a pod in team-a is checked
    request:
      operation: CREATE
      namespace: team-a
      object:
        apiVersion: v1
        kind: Pod
        metadata: { name: p, labels: { tier: "yes" } }
        spec: { containers: [{ name: c, image: nginx }] }
      userInfo: { username: alice, groups: [dev] }
    expect:
      calls:
        - ValidatingAdmissionPolicy/require-team/require-team
        - ValidatingWebhookConfiguration/gate/gate.example.com
      skipped:
        - hook: MutatingWebhookConfiguration/inject
          reason: namespace-selector
      policies:
        - hook: ValidatingAdmissionPolicy/require-team
          result: denied
          message: team
      dryRun:
        allowed: false
        webhooks:
          - hook: ValidatingWebhookConfiguration/gate/gate.example.com
            allowed: true
`;

describe("parseTestFile", () => {
  it("reads a suite into cases with their lines", () => {
    const r = parseTestFile(SUITE);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.suites[0]?.namespaces).toEqual({ "team-a": { team: "a" } });
    expect(r.cases).toHaveLength(1);
    expect(r.cases[0]?.line).toBe(8);
    const c = r.cases[0]?.case;
    expect(c?.request.object?.metadata).toEqual({ name: "p", labels: { tier: "yes" } });
    expect(c?.expect.skipped?.[0]?.reason).toBe("namespace-selector");
  });

  it("names the line and field of a misspelt field, a wrong value and a bad hook", () => {
    const text = SUITE.replace("operation: CREATE", "operation: CREAT")
      .replace("    expect:\n", "    expects: {}\n    expect:\n")
      .replace("reason: namespace-selector", "reason: selector")
      .replace("- ValidatingAdmissionPolicy/require-team/require-team", "- Policy/require-team");
    const r = parseTestFile(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const lines = r.errors.map((e) => formatTestFileError("t.yaml", e));
    expect(lines[0]).toMatch(/^t\.yaml:10:18: cases\[0\]\.request\.operation: /);
    expect(
      lines.some((l) => l.startsWith('t.yaml:18:5: cases[0].expects: unknown field "expects"')),
    ).toBe(true);
    expect(
      lines.some((l) =>
        /^t\.yaml:21:11: cases\[0\]\.expect\.calls\[0\]: a hook is written/.test(l),
      ),
    ).toBe(true);
    expect(lines.some((l) => l.startsWith("t.yaml:25:19: cases[0].expect.skipped[0].reason"))).toBe(
      true,
    );
  });

  it("refuses another apiVersion, a YAML error, an empty file and two cases of one name", () => {
    const v = parseTestFile(SUITE.replace("v1alpha1", "v9"));
    expect(!v.ok && v.errors[0]).toMatchObject({ line: 1, field: "apiVersion" });
    const y = parseTestFile("cases: [\n");
    expect(y.ok).toBe(false);
    const e = parseTestFile("# nothing\n");
    expect(!e.ok && e.errors[0]?.message).toMatch(/no AdmissionTestSuite/);
    const twice = parseTestFile(`${SUITE}---\n${SUITE}`);
    expect(!twice.ok && twice.errors[0]).toMatchObject({
      line: 42,
      field: "cases[0].name",
      document: 1,
    });
  });
});

describe("serializeTestFile", () => {
  it("writes what parseTestFile reads back, strings that YAML 1.1 reads otherwise quoted", () => {
    const r = parseTestFile(SUITE);
    if (!r.ok) throw new Error("parse");
    const cases: TestCase[] = r.cases.map((c) => c.case);
    const text = serializeTestFile(cases, { metadata: { name: "team-a" } });
    const back = parseTestFile(text);
    expect(back.ok && back.cases.map((c) => c.case)).toEqual(cases);
    const odd: TestCase = {
      name: "odd scalars",
      request: {
        operation: "CREATE",
        object: {
          apiVersion: "v1",
          kind: "ConfigMap",
          data: { a: "yes", b: "0755", c: "on", d: "1e3", e: "~" },
        },
      },
      expect: { admitted: true },
    };
    const round = parseTestFile(serializeTestFile([odd]));
    expect(round.ok && round.cases[0]?.case).toEqual(odd);
  });
});

describe("hook references", () => {
  it("read and write <Source>/<configuration>[/<name>]", () => {
    expect(parseHookRef("ValidatingWebhookConfiguration/gk/validation.gatekeeper.sh")).toEqual({
      source: "ValidatingWebhookConfiguration",
      configuration: "gk",
      name: "validation.gatekeeper.sh",
    });
    expect(parseHookRef("MutatingAdmissionPolicy/p")).toEqual({
      source: "MutatingAdmissionPolicy",
      configuration: "p",
      name: undefined,
    });
    expect(parseHookRef("Webhook/a/b")).toBeUndefined();
    expect(parseHookRef("ValidatingAdmissionPolicy/a/b/c")).toBeUndefined();
    expect(
      formatHookRef({ source: "ValidatingAdmissionPolicy", configuration: "p", name: "b" }),
    ).toBe("ValidatingAdmissionPolicy/p/b");
  });
});

describe("the documented example", () => {
  it("is a valid suite (docs/admission-tests.md)", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync(new URL("../../../docs/admission-tests.md", import.meta.url), "utf8");
    const example = /```yaml\n(apiVersion: portcullis\.dev[\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const r = parseTestFile(example ?? "");
    expect(r.ok ? r.cases.length : r.errors).toBe(2);
  });
});
