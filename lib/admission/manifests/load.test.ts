import { describe, expect, it } from "vitest";
import { loadManifestDir, manifestObjects, isManifestFileName } from "./load";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { withManifests } from "@/lib/admission/model/snapshot";

const vwc = (name: string, extra = "") => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: deny.example.com
  clientConfig:
    url: https://127.0.0.1:9443/deny
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [configmaps]
${extra}`;

const vap = (name: string, spec = "") => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  matchConstraints:
    resourceRules:
    - operations: [CREATE]
      apiGroups: [""]
      apiVersions: [v1]
      resources: [configmaps]
  validations:
  - expression: "true"
${spec}`;

const binding = (
  name: string,
  policy: string,
  spec = "",
) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policy}
  validationActions: [Deny]
${spec}`;

describe("loadManifestDir (the apiserver's manifest loaders)", () => {
  it("reads yaml, yml and json names only", () => {
    expect(["a.yaml", "b.YML", "c.json", "d.txt", "e"].filter(isManifestFileName)).toEqual([
      "a.yaml",
      "b.YML",
      "c.json",
    ]);
  });

  it("accepts suffixed objects, defaults them and sorts by name", () => {
    const r = loadManifestDir("ValidatingAdmissionWebhook", [
      { path: "/m/b.yaml", text: vwc("b.static.k8s.io") },
      { path: "/m/a.yaml", text: vwc("c.static.k8s.io") + "---\n" + vwc("a.static.k8s.io") },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.objects.map((o) => [o.name, o.file])).toEqual([
      ["a.static.k8s.io", "/m/a.yaml"],
      ["b.static.k8s.io", "/m/b.yaml"],
      ["c.static.k8s.io", "/m/a.yaml"],
    ]);
    // Defaults the apiserver applies: failurePolicy Fail, matchPolicy Equivalent, timeout 10.
    const w = (r.objects[0]?.object["webhooks"] as Array<Record<string, unknown>>)[0];
    expect(w?.["failurePolicy"]).toBe("Fail");
    expect(w?.["timeoutSeconds"]).toBe(10);
  });

  it("unwraps a v1 List and a typed list", () => {
    const list = `apiVersion: v1
kind: List
items:
- ${vwc("a.static.k8s.io").split("\n").join("\n  ")}
`;
    const r = loadManifestDir("ValidatingAdmissionWebhook", [{ path: "/m/l.yaml", text: list }]);
    expect(r).toMatchObject({ ok: true, objects: [{ name: "a.static.k8s.io" }] });
  });

  it.each([
    {
      what: "the reserved suffix is required",
      plugin: "ValidatingAdmissionWebhook" as const,
      files: [{ path: "/m/a.yaml", text: vwc("plain") }],
      error: `error loading /m/a.yaml: "plain" in file "/m/a.yaml" must have a name ending with ".static.k8s.io"`,
    },
    {
      what: "names are unique",
      plugin: "ValidatingAdmissionWebhook" as const,
      files: [
        { path: "/m/a.yaml", text: vwc("x.static.k8s.io") },
        { path: "/m/b.yaml", text: vwc("x.static.k8s.io") },
      ],
      error: `error loading /m/b.yaml: duplicate name "x.static.k8s.io" found in file "/m/b.yaml" (previously seen in "/m/a.yaml")`,
    },
    {
      what: "webhooks take URLs only",
      plugin: "ValidatingAdmissionWebhook" as const,
      files: [
        {
          path: "/m/a.yaml",
          text: vwc("x.static.k8s.io").replace(
            "url: https://127.0.0.1:9443/deny",
            "service: {namespace: default, name: svc}",
          ),
        },
      ],
      error: `error loading /m/a.yaml: webhook "deny.example.com" in "x.static.k8s.io" (file "/m/a.yaml"): clientConfig.service is not supported for static manifests; use clientConfig.url instead`,
    },
    {
      what: "one kind per plugin directory",
      plugin: "MutatingAdmissionWebhook" as const,
      files: [{ path: "/m/a.yaml", text: vwc("x.static.k8s.io") }],
      error:
        "error loading /m/a.yaml: unsupported resource type *v1.ValidatingWebhookConfiguration",
    },
    {
      what: "v1 only",
      plugin: "ValidatingAdmissionWebhook" as const,
      files: [
        {
          path: "/m/a.yaml",
          text: vwc("x.static.k8s.io").replace("k8s.io/v1\n", "k8s.io/v1beta1\n"),
        },
      ],
      error:
        "error loading /m/a.yaml: unsupported resource type *v1beta1.ValidatingWebhookConfiguration",
    },
    {
      what: "the kind's own validation, as for a create",
      plugin: "ValidatingAdmissionWebhook" as const,
      files: [
        {
          path: "/m/a.yaml",
          text: vwc("x.static.k8s.io").replace("sideEffects: None", "sideEffects: Some"),
        },
      ],
      error: `error loading /m/a.yaml: ValidatingWebhookConfiguration "x.static.k8s.io": webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`,
    },
    {
      what: "static policies take no params",
      plugin: "ValidatingAdmissionPolicy" as const,
      files: [
        {
          path: "/m/a.yaml",
          text: vap("p.static.k8s.io", "  paramKind: {apiVersion: v1, kind: ConfigMap}\n"),
        },
      ],
      error: `error loading /m/a.yaml: ValidatingAdmissionPolicy "p.static.k8s.io": spec.paramKind is not supported for static manifests`,
    },
    {
      what: "bindings name a static policy",
      plugin: "ValidatingAdmissionPolicy" as const,
      files: [{ path: "/m/a.yaml", text: binding("b.static.k8s.io", "api-policy") }],
      error: `error loading /m/a.yaml: binding "b.static.k8s.io": spec.policyName "api-policy" must end with ".static.k8s.io"`,
    },
    {
      what: "bindings name a policy of the directory",
      plugin: "ValidatingAdmissionPolicy" as const,
      files: [{ path: "/m/a.yaml", text: binding("b.static.k8s.io", "p.static.k8s.io") }],
      error: `binding "b.static.k8s.io" references policy "p.static.k8s.io" which does not exist in the manifest directory`,
    },
    {
      what: "bindings take no paramRef",
      plugin: "ValidatingAdmissionPolicy" as const,
      files: [
        {
          path: "/m/a.yaml",
          text:
            vap("p.static.k8s.io") +
            "---\n" +
            binding(
              "b.static.k8s.io",
              "p.static.k8s.io",
              "  paramRef: {name: x, parameterNotFoundAction: Deny}\n",
            ),
        },
      ],
      error: `error loading /m/a.yaml: binding "b.static.k8s.io": spec.paramRef is not supported for static manifests`,
    },
    {
      what: "unknown kinds are not in the loader's scheme",
      plugin: "ValidatingAdmissionPolicy" as const,
      files: [
        { path: "/m/a.yaml", text: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n" },
      ],
      error: `error loading /m/a.yaml: no kind "ConfigMap" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"`,
    },
  ])("$what", ({ plugin, files, error }) => {
    expect(loadManifestDir(plugin, files)).toEqual({ ok: false, error });
  });

  it("policies and bindings share names apart, and reach the snapshot marked static", () => {
    const r = loadManifestDir("ValidatingAdmissionPolicy", [
      { path: "/m/p.yaml", text: vap("p.static.k8s.io") },
      { path: "/m/b.yaml", text: binding("p.static.k8s.io", "p.static.k8s.io") },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const objects = manifestObjects([
      { plugin: "ValidatingAdmissionPolicy", dir: "/m", objects: r.objects },
    ]);
    const compiled = compileSnapshot(withManifests({}, objects));
    expect(compiled.validatingPolicies.map((h) => [h.key, h.id.origin])).toEqual([
      [
        "ValidatingAdmissionPolicy:p.static.k8s.io/p.static.k8s.io",
        { kind: "manifest", plugin: "ValidatingAdmissionPolicy", file: "/m/b.yaml", dir: "/m" },
      ],
    ]);
  });
});
