/**
 * `portcullis lint` offline runs L1 (self-interception) and L6 (cycles) from the Services,
 * Deployments, DaemonSets, StatefulSets and Pods beside the configurations, or infers a
 * service-backed hook's pods from its Service's namespace and says so.
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

async function lintJson(argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(["lint", ...argv, "-o", "json"], {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
  });
  if (!out) throw new Error(err);
  return {
    code,
    report: JSON.parse(out) as {
      findings: Array<{
        id: string;
        explanation: string;
        objects: Array<{ name: string; hook?: string }>;
      }>;
      notices: Array<{ message: string }>;
      checks: { run: string[] };
    },
  };
}

/** A fail-closed pod hook served from `ns/svc`, intercepting namespaces matching `selector`. */
const hookConfig = (name: string, ns: string, selector: string, objectSelector = "") => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ${name}}
webhooks:
  - name: ${name}.example.com
    clientConfig: {service: {namespace: ${ns}, name: ${name}}}
    rules: [{operations: [CREATE], apiGroups: ["", apps], apiVersions: [v1], resources: [pods, deployments]}]
    sideEffects: None
    admissionReviewVersions: [v1]
    namespaceSelector: ${selector}
${objectSelector ? `    objectSelector: ${objectSelector}\n` : ""}`;

const service = (name: string, ns: string) => `
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ${ns}}
spec: {selector: {app: ${name}}, ports: [{port: 443}]}
`;

const deployment = (name: string, ns: string, labels: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}, ${labels}}}
    spec: {containers: [{name: c, image: x}]}
`;

const byName = (ns: string) =>
  `{matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [${ns}]}]}`;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-cli-backends-"));
});

describe("lint L1/L6 offline from manifests", () => {
  test("L1 from a Service and its Deployment; an objectSelector on the template's labels clears it", async () => {
    const hit = await lintJson([
      file(
        "self.yaml",
        [
          hookConfig("guard", "sec", "{}"),
          service("guard", "sec"),
          deployment("guard", "sec", "tier: web"),
        ].join("---"),
      ),
    ]);
    expect(hit.code).toBe(1);
    const l1 = hit.report.findings.find((f) => f.id === "L1");
    expect(l1?.objects).toEqual([
      { kind: "ValidatingWebhookConfiguration", name: "guard", hook: "guard.example.com" },
      { kind: "Namespace", name: "sec" },
    ]);
    expect(l1?.explanation).not.toContain("inference");
    expect(hit.report.notices.map((n) => n.message).join("\n")).not.toContain("inferred");

    const exempt = await lintJson([
      file(
        "exempt.yaml",
        [
          hookConfig(
            "guard",
            "sec",
            "{}",
            "{matchExpressions: [{key: tier, operator: NotIn, values: [web]}]}",
          ),
          service("guard", "sec"),
          deployment("guard", "sec", "tier: web"),
        ].join("---"),
      ),
    ]);
    expect(exempt.report.findings.filter((f) => f.id === "L1")).toEqual([]);
  });

  test("L6 from two Services whose hooks intercept each other's namespaces", async () => {
    const { report } = await lintJson([
      file(
        "pair.yaml",
        [
          hookConfig("one", "a", byName("b")),
          hookConfig("two", "b", byName("a")),
          service("one", "a"),
          service("two", "b"),
        ].join("---"),
      ),
    ]);
    const l6 = report.findings.filter((f) => f.id === "L6");
    expect(l6).toHaveLength(1);
    expect(l6[0]?.objects.map((o) => o.name).sort()).toEqual(["one", "two"]);
    expect(report.findings.filter((f) => f.id === "L1")).toEqual([]);
  });

  test("L6 of length three", async () => {
    const { report } = await lintJson([
      file(
        "ring.yaml",
        [
          hookConfig("one", "a", byName("b")),
          hookConfig("two", "b", byName("c")),
          hookConfig("three", "c", byName("a")),
          service("one", "a"),
          service("two", "b"),
          service("three", "c"),
        ].join("---"),
      ),
    ]);
    const l6 = report.findings.filter((f) => f.id === "L6");
    expect(l6).toHaveLength(1);
    expect(l6[0]?.explanation).toMatch(
      /one\.example\.com → two\.example\.com → three\.example\.com → one\.example\.com/,
    );
  });

  test("with only configurations, the backend's namespace is inferred from its Service and said so", async () => {
    const { code, report } = await lintJson([file("only.yaml", hookConfig("guard", "sec", "{}"))]);
    expect(code).toBe(1);
    const l1 = report.findings.find((f) => f.id === "L1");
    expect(l1?.explanation).toContain("rests on an inference");
    expect(l1?.explanation).toContain("Service's namespace sec");
    expect(report.notices.map((n) => n.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("no Service in the input for sec/guard")]),
    );
    // A namespaceSelector that exempts the Service's namespace clears the inferred finding.
    const clear = await lintJson([
      file(
        "only-exempt.yaml",
        hookConfig(
          "guard",
          "sec",
          "{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [sec]}]}",
        ),
      ),
    ]);
    expect(clear.report.findings.filter((f) => f.id === "L1")).toEqual([]);
  });
});
