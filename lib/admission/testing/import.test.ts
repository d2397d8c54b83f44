import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseTestFile } from "./format";
import { importKaptest, importKat } from "./import";

const FIXTURES = path.join(import.meta.dirname, "fixtures");

function listFiles(root: string, dir = ""): string[] {
  return readdirSync(path.join(root, dir))
    .sort()
    .flatMap((name) => {
      const rel = dir === "" ? name : `${dir}/${name}`;
      return statSync(path.join(root, rel)).isDirectory() ? listFiles(root, rel) : [rel];
    });
}

const readUnder = (root: string) => (f: string) => readFileSync(path.resolve(root, f), "utf8");

describe("kat", () => {
  const dirs = [
    "validating/block-team-ci-service-accounts",
    "validating/namespace-selector-binding",
    "validating/replica-limit-with-params",
    "mutating/sidecar-injection",
  ];
  it.each(dirs)("%s maps onto a suite with every case", (dir) => {
    const root = path.join(FIXTURES, "kat", dir);
    const r = importKat(listFiles(root), readUnder(root));
    expect(r.unmapped).toEqual([]);
    const tests = new Set(
      listFiles(root)
        .filter((f) => f.startsWith("tests/"))
        .map((f) => path.basename(f).split(".").slice(0, -2).join(".")),
    );
    // Every test's base name (without its expect word's files) became one case.
    expect(r.cases.length).toBe(
      new Set([...tests].map((t) => t.replace(/\.(gold|message|expected)$/, ""))).size,
    );
    const text = readFileSync(
      path.join(FIXTURES, "kat", `${path.basename(dir)}.portcullis.yaml`),
      "utf8",
    );
    const parsed = parseTestFile(text);
    expect(parsed.ok && parsed.cases.map((c) => c.case)).toEqual(r.cases);
  });

  it("reads the request file, the message, the gold object and a missing params file", () => {
    const root = path.join(FIXTURES, "kat", "validating/replica-limit-with-params");
    const r = importKat(listFiles(root), readUnder(root));
    const noParams = r.cases.find((c) => c.name === "replica-limit-params.no-params.deny");
    expect(noParams?.request.params).toEqual([]);
    expect(noParams?.expect).toEqual({
      admitted: false,
      policies: [
        {
          hook: "ValidatingAdmissionPolicy/replica-limit-with-params",
          result: "denied",
          message: "params missing but required to bind to this policy",
        },
      ],
    });
    const sidecar = path.join(FIXTURES, "kat", "mutating/sidecar-injection");
    const m = importKat(listFiles(sidecar), readUnder(sidecar));
    expect(m.cases[0]?.expect.mutatedObject).toMatchObject({
      spec: { containers: [{ name: "app" }, { name: "istio-proxy" }] },
    });
    const ci = path.join(FIXTURES, "kat", "validating/block-team-ci-service-accounts");
    const u = importKat(listFiles(ci), readUnder(ci));
    expect(u.cases[1]?.request.userInfo?.username).toBe(
      "system:serviceaccount:team-platform-ci:deployer",
    );
  });

  it("reports what does not map", () => {
    const r = importKat(
      [
        "policy.yaml",
        "tests/p.t.allow.authorizer.yaml",
        "tests/p.t.allow.object.yaml",
        "tests/notes.md",
      ],
      (f) =>
        f === "policy.yaml"
          ? "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec: {}\n"
          : "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",
    );
    expect(r.unmapped).toEqual([
      "tests/notes.md: not a kat test file",
      expect.stringMatching(/^tests\/p\.t\.allow: authorizer mocks do not map/) as string,
      "no binding file: the policies are never called (kat needs one too)",
    ]);
  });
});

describe("kaptest", () => {
  it.each(["vap-with-params", "vap-with-namespaces"])(
    "%s maps with a binding per policy",
    (name) => {
      const manifest = path.join(FIXTURES, "kaptest", `${name}.test`, "kaptest.yaml");
      const root = path.dirname(manifest);
      const r = importKaptest(readFileSync(manifest, "utf8"), readUnder(root));
      expect(r.configurationObjects).toEqual([
        expect.objectContaining({
          kind: "ValidatingAdmissionPolicyBinding",
          spec: expect.objectContaining({
            policyName: "deployment-replicas",
            validationActions: ["Deny"],
          }) as object,
        }),
      ]);
      expect(r.unmapped).toEqual([
        expect.stringContaining("kaptest never evaluates matchConstraints") as string,
      ]);
      expect(r.cases.map((c) => c.expect.admitted)).toEqual([undefined, false]);
      const text = readFileSync(path.join(FIXTURES, "kaptest", `${name}.portcullis.yaml`), "utf8");
      const parsed = parseTestFile(text);
      expect(parsed.ok && parsed.cases.map((c) => c.case)).toEqual(r.cases);
      expect(parsed.ok && parsed.suites[0]?.configurationObjects).toEqual(r.configurationObjects);
    },
  );

  it("finds the namespace object and the param among the resources", () => {
    const manifest = path.join(FIXTURES, "kaptest", "vap-with-namespaces.test", "kaptest.yaml");
    const r = importKaptest(readFileSync(manifest, "utf8"), readUnder(path.dirname(manifest)));
    expect(r.cases[0]?.request.namespaceObject).toMatchObject({ metadata: { name: "foo" } });
    const pm = path.join(FIXTURES, "kaptest", "vap-with-params.test", "kaptest.yaml");
    const p = importKaptest(readFileSync(pm, "utf8"), readUnder(path.dirname(pm)));
    expect(p.cases[0]?.request.params).toEqual([
      expect.objectContaining({ metadata: { name: "config1", namespace: "hoge" } }),
    ]);
  });
});
