/** `--admission-manifests`: static hooks and policies read as the apiserver reads them. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { main } from "./main";
import { parseCommandLine } from "./args";

let dir = "";

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err };
}

const webhook = (config: string, name: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ${config}}
webhooks:
  - name: ${name}
    clientConfig: {url: "https://127.0.0.1:9443/v"}
    rules: [{operations: [CREATE], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}]
    sideEffects: None
    admissionReviewVersions: [v1]
`;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-cli-manifests-"));
  mkdirSync(path.join(dir, "vwc"));
  writeFileSync(
    path.join(dir, "vwc", "a.yaml"),
    webhook("guard.static.k8s.io", "guard.example.com"),
  );
  mkdirSync(path.join(dir, "broken"));
  writeFileSync(path.join(dir, "broken", "a.yaml"), webhook("guard", "guard.example.com"));
  writeFileSync(path.join(dir, "api.yaml"), webhook("a-api", "api.example.com"));
  writeFileSync(
    path.join(dir, "vwc-object.yaml"),
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: x}
webhooks: []
`,
  );
});

describe("--admission-manifests", () => {
  test("is repeatable, on lint and predict", () => {
    expect(
      parseCommandLine([
        "lint",
        "--admission-manifests",
        "/a",
        "--admission-manifests",
        "ValidatingAdmissionPolicy=/b",
      ]),
    ).toMatchObject({
      command: "lint",
      inputs: [],
      admissionManifests: ["/a", "ValidatingAdmissionPolicy=/b"],
    });
  });

  test("predict: static webhooks first, and alone on a webhook configuration write", async () => {
    const base = [
      "predict",
      "--config",
      path.join(dir, "api.yaml"),
      "--admission-manifests",
      path.join(dir, "vwc"),
      "-o",
      "json",
    ];
    const pod = path.join(dir, "pod.yaml");
    writeFileSync(pod, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n");
    const r = await run([...base, "--object", pod, "--operation", "CREATE"]);
    const report = JSON.parse(r.out) as {
      calls: Array<{ hook: { configuration: string; origin?: { file: string } } }>;
    };
    expect(report.calls.map((c) => [c.hook.configuration, c.hook.origin?.file])).toEqual([
      ["guard.static.k8s.io", path.join(dir, "vwc", "a.yaml")],
      ["a-api", undefined],
    ]);

    const w = await run([
      ...base,
      "--object",
      path.join(dir, "vwc-object.yaml"),
      "--operation",
      "CREATE",
    ]);
    const write = JSON.parse(w.out) as typeof report;
    expect(write.calls.map((c) => c.hook.configuration)).toEqual(["guard.static.k8s.io"]);
  });

  test("a directory the apiserver would refuse: exit 2 with its message", async () => {
    const r = await run(["lint", "--admission-manifests", path.join(dir, "broken")]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `"guard" in file "${path.join(dir, "broken", "a.yaml")}" must have a name ending with ".static.k8s.io"`,
    );
  });
});
