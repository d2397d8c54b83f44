import { describe, expect, it } from "vitest";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import { compileSelector } from "@/lib/admission/model/selectors";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { hook, validatingSnapshot } from "@/lib/admission/model/test-helpers";
import type { V1ValidatingWebhook } from "@kubernetes/client-node";
import { exampleFor, labelsSatisfying } from "./hook-example";
import { hookTargetParam, parseHookTarget, predictHref, type HookTarget } from "./links";
import { predictPage, type LiveInputs } from "./page-request";
import { liveOf } from "./test-live";
import { Rand } from "../../test/oracle/random-requests";

const createPods = {
  operations: ["CREATE"],
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["pods"],
};

const target = (name: string): HookTarget => ({
  source: "ValidatingWebhookConfiguration",
  configuration: "cfg",
  name,
});

/** The hooks the page's own prediction of the example calls (the proof, not the search's word). */
function calledBy(live: LiveInputs, ex: ReturnType<typeof exampleFor>): string[] {
  if (!ex.found) return [];
  const r = predictPage(ex.state, live);
  return r.ok ? r.report.calls.map((c) => c.hook.name) : [];
}

describe("a hook's example request", () => {
  it("names the live namespace the namespaceSelector accepts, and the rule's resource", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("cm.example.com", {
          rules: [
            {
              operations: ["UPDATE", "CREATE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["configmaps"],
            },
          ],
          namespaceSelector: { matchLabels: { env: "prod" } },
        }),
      ]),
    );
    const ex = exampleFor(target("cm.example.com"), live);
    expect(ex).toMatchObject({
      found: true,
      called: true,
      summary: "CREATE configmaps in namespace team",
    });
    expect(ex.found && ex.state.namespaceLabels).toBeUndefined();
    expect(calledBy(live, ex)).toEqual(["cm.example.com"]);
  });

  it("labels the object for the objectSelector and skips namespaces the selector refuses", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("deploy.example.com", {
          rules: [
            {
              operations: ["*"],
              apiGroups: ["apps"],
              apiVersions: ["v1"],
              resources: ["deployments"],
              scope: "Namespaced",
            },
          ],
          namespaceSelector: {
            matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
          },
          objectSelector: {
            matchLabels: { team: "a" },
            matchExpressions: [
              { key: "tier", operator: "In", values: ["web", "api"] },
              { key: "tier", operator: "NotIn", values: ["web"] },
              { key: "canary", operator: "DoesNotExist" },
              { key: "owner", operator: "Exists" },
            ],
          },
        }),
      ]),
    );
    const ex = exampleFor(target("deploy.example.com"), live);
    expect(ex).toMatchObject({ called: true, summary: "CREATE deployments in namespace default" });
    expect(ex.found && ex.state.object).toContain("kind: Deployment");
    expect(ex.found && ex.state.object).toContain(
      "  labels:\n    owner: example\n    team: a\n    tier: api\n",
    );
    expect(calledBy(live, ex)).toEqual(["deploy.example.com"]);
  });

  it("a wildcard hook reads as a ConfigMap; a CONNECT-only hook as the subresource it names", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("all.example.com", {
          rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }],
        }),
        hook("exec.example.com", {
          rules: [
            {
              operations: ["CONNECT"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["pods/exec"],
            },
          ],
        }),
      ]),
    );
    expect(exampleFor(target("all.example.com"), live)).toMatchObject({
      called: true,
      summary: "CREATE configmaps in namespace default",
    });
    const exec = exampleFor(target("exec.example.com"), live);
    expect(exec).toMatchObject({ called: true, summary: "CONNECT pods/exec in namespace default" });
    expect(calledBy(live, exec)).toContain("exec.example.com");
  });

  it("asks only for what the resource serves, by discovery's verbs", () => {
    const statusHook = (name: string, operations: string[]) =>
      hook(name, {
        rules: [{ operations, apiGroups: [""], apiVersions: ["v1"], resources: ["pods/status"] }],
      });
    const base = liveOf(
      validatingSnapshot([
        statusHook("status.example.com", ["CREATE", "UPDATE"]),
        statusHook("never.example.com", ["CREATE", "DELETE"]),
      ]),
    );
    // As the apiserver lists it: pods/status serves get, patch and update only.
    const live: LiveInputs = {
      ...base,
      discovery: base.discovery.map((d) =>
        d.group === "" && d.resource === "pods"
          ? {
              ...d,
              verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
              subresources: d.subresources?.map((s) =>
                s.name === "status" ? { ...s, verbs: ["get", "patch", "update"] } : s,
              ),
            }
          : d,
      ),
    };
    // Without verbs the first operation of the rule is asked for.
    expect(exampleFor(target("status.example.com"), base)).toMatchObject({
      summary: "CREATE pods/status in namespace default",
    });
    const ex = exampleFor(target("status.example.com"), live);
    expect(ex).toMatchObject({ called: true, summary: "UPDATE pods/status in namespace default" });
    expect(calledBy(live, ex)).toContain("status.example.com");
    expect(exampleFor(target("never.example.com"), live)).toMatchObject({
      found: false,
      reason: expect.stringContaining("for an operation it serves"),
    });
  });

  it("a cluster-scoped rule gets a cluster-scoped resource and no namespace", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("nodes.example.com", {
          rules: [
            {
              operations: ["DELETE"],
              apiGroups: ["*"],
              apiVersions: ["*"],
              resources: ["*"],
              scope: "Cluster",
            },
          ],
        }),
      ]),
    );
    const ex = exampleFor(target("nodes.example.com"), live);
    expect(ex.found && ex.called).toBe(true);
    expect(ex.found && ex.state.operation).toBe("DELETE");
    expect(ex.found && ex.summary).not.toContain("namespace ");
    expect(ex.found && ex.state.object).not.toContain("namespace:");
  });

  it("when no live namespace is accepted, a what-if namespace that is", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("gated.example.com", {
          rules: [createPods],
          namespaceSelector: { matchLabels: { "injection.example.com": "enabled" } },
        }),
      ]),
    );
    const ex = exampleFor(target("gated.example.com"), live);
    expect(ex).toMatchObject({
      called: true,
      whatIfNamespace: "default",
      whatIfSelectors: "namespaceSelector",
    });
    expect(ex.found && ex.state.namespaceLabels).toEqual({
      "kubernetes.io/metadata.name": "default",
      "injection.example.com": "enabled",
    });
    expect(calledBy(live, ex)).toEqual(["gated.example.com"]);
  });

  it("a Namespace's DELETE names a live namespace the apiserver would delete, as labelled", () => {
    const deleteNamespaces = {
      operations: ["DELETE"],
      apiGroups: [""],
      apiVersions: ["v1"],
      resources: ["namespaces"],
    };
    // Its stored labels meet both selectors: that namespace, no what-if.
    const live = liveOf(
      validatingSnapshot([
        hook("ns-delete.example.com", {
          rules: [deleteNamespaces],
          namespaceSelector: { matchExpressions: [{ key: "runlevel", operator: "DoesNotExist" }] },
          objectSelector: { matchLabels: { env: "prod" } },
        }),
      ]),
    );
    const ex = exampleFor(target("ns-delete.example.com"), live);
    expect(ex).toMatchObject({ called: true, summary: "DELETE namespace team" });
    expect(ex.found && ex.whatIfNamespace).toBeUndefined();
    expect(ex.found && ex.state.object).toContain("name: team");
    expect(calledBy(live, ex)).toEqual(["ns-delete.example.com"]);

    // No live namespace carries the labels: a what-if, never on default or kube-system (the
    // apiserver refuses their DELETE before any webhook).
    const gated = liveOf(
      validatingSnapshot([
        hook("ns-gated.example.com", {
          rules: [deleteNamespaces],
          namespaceSelector: { matchExpressions: [{ key: "team", operator: "DoesNotExist" }] },
          objectSelector: { matchLabels: { app: "web" } },
        }),
      ]),
    );
    const whatIf = exampleFor(target("ns-gated.example.com"), gated);
    expect(whatIf).toMatchObject({
      called: true,
      whatIfNamespace: "team",
      whatIfSelectors: "namespaceSelector and objectSelector",
    });
    expect(whatIf.found && whatIf.state.namespaceLabels).toEqual({
      "kubernetes.io/metadata.name": "team",
      env: "prod",
      app: "web",
    });
    expect(calledBy(gated, whatIf)).toEqual(["ns-gated.example.com"]);
  });

  it("a hook nothing can reach: the first request, uncalled, whose prediction says why", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("never.example.com", {
          rules: [createPods],
          namespaceSelector: {
            matchExpressions: [
              { key: "a", operator: "Exists" },
              { key: "a", operator: "DoesNotExist" },
            ],
          },
        }),
      ]),
    );
    const ex = exampleFor(target("never.example.com"), live);
    expect(ex).toMatchObject({
      found: true,
      called: false,
      summary: "CREATE pods in namespace default",
    });
    const r = ex.found ? predictPage(ex.state, live) : undefined;
    expect(r?.ok && r.report.skips.map((s) => [s.hook.name, s.code])).toEqual([
      ["never.example.com", "namespace-selector"],
    ]);
  });

  it("uncalled, the request shown passes every selector it can: the condition says why", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("cond.example.com", {
          rules: [createPods],
          namespaceSelector: { matchLabels: { env: "prod" } },
          matchConditions: [{ name: "never", expression: "object.metadata.name == 'nope'" }],
        }),
      ]),
    );
    const ex = exampleFor(target("cond.example.com"), live);
    expect(ex).toMatchObject({ called: false, summary: "CREATE pods in namespace team" });
    const r = ex.found ? predictPage(ex.state, live) : undefined;
    expect(r?.ok && r.report.skips.map((s) => s.code)).toEqual(["match-condition-false"]);
  });

  it("an unknown hook, or one whose rules match no served resource, is said so", () => {
    const live = liveOf(
      validatingSnapshot([
        hook("ghost.example.com", {
          rules: [
            {
              operations: ["CREATE"],
              apiGroups: ["nope.io"],
              apiVersions: ["v1"],
              resources: ["ghosts"],
            },
          ],
        }),
      ]),
    );
    expect(exampleFor(target("missing.example.com"), live)).toEqual({
      found: false,
      reason:
        "ValidatingWebhookConfiguration cfg / missing.example.com is not in the cluster's admission state (deleted, renamed, or not readable as this context)",
    });
    expect(exampleFor(target("ghost.example.com"), live)).toMatchObject({
      found: false,
      reason: expect.stringContaining("no served resource matches"),
    });
  });

  it("a policy: its constraints narrowed by the binding, any binding when none is named", () => {
    const snapshot: AdmissionSnapshot = {
      ...validatingSnapshot([]),
      validatingAdmissionPolicies: [
        {
          metadata: { name: "replicas" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: {
              resourceRules: [
                {
                  operations: ["CREATE", "UPDATE"],
                  apiGroups: ["apps"],
                  apiVersions: ["v1"],
                  resources: ["deployments", "statefulsets"],
                  resourceNames: ["web"],
                },
              ],
            },
            validations: [{ expression: "object.spec.replicas <= 5" }],
          },
        } as never,
      ],
      validatingAdmissionPolicyBindings: [
        {
          metadata: { name: "prod-only" },
          spec: {
            policyName: "replicas",
            validationActions: ["Deny"],
            matchResources: {
              namespaceSelector: { matchLabels: { env: "prod" } },
              resourceRules: [
                {
                  operations: ["UPDATE"],
                  apiGroups: ["apps"],
                  apiVersions: ["v1"],
                  resources: ["statefulsets"],
                },
              ],
            },
          },
        } as never,
      ],
    };
    const live = liveOf(snapshot);
    for (const name of ["prod-only", ""]) {
      const ex = exampleFor(
        { source: "ValidatingAdmissionPolicy", configuration: "replicas", name },
        live,
      );
      expect(ex).toMatchObject({ called: true, summary: "UPDATE statefulsets in namespace team" });
      expect(ex.found && ex.state.object).toContain("name: web");
      expect(calledBy(live, ex)).toEqual(["prod-only"]);
    }
  });

  it("a mutating policy with a binding that has no matchResources: the policy's own constraints", () => {
    const live = liveOf({
      ...validatingSnapshot([]),
      mutatingAdmissionPolicies: [
        {
          metadata: { name: "owner" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: {
              resourceRules: [
                {
                  operations: ["CREATE"],
                  apiGroups: ["batch"],
                  apiVersions: ["v1"],
                  resources: ["cronjobs"],
                },
              ],
              objectSelector: { matchLabels: { tier: "batch" } },
            },
            reinvocationPolicy: "Never",
            mutations: [],
          },
        } as never,
      ],
      mutatingAdmissionPolicyBindings: [
        { metadata: { name: "owner-b" }, spec: { policyName: "owner" } } as never,
      ],
    });
    const ex = exampleFor(
      { source: "MutatingAdmissionPolicy", configuration: "owner", name: "" },
      live,
    );
    expect(ex).toMatchObject({ called: true, summary: "CREATE cronjobs in namespace default" });
    expect(ex.found && ex.state.object).toContain("kind: CronJob");
    expect(ex.found && ex.state.object).toContain("tier: batch");
    expect(calledBy(live, ex)).toEqual(["owner-b"]);
  });

  it("finds a called request for every satisfiable random hook", () => {
    const rand = new Rand(7);
    const rnd = (n: number) => Math.floor(rand.next() * n);
    const pick = <T>(a: readonly T[]): T => rand.pick(a);
    // Admission's own configuration and the virtual auth reviews are never sent to webhooks.
    const exempt = [
      "admissionregistration.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
    ];
    const served = builtinDiscovery().filter((d) => !exempt.includes(d.group));
    const hooks: V1ValidatingWebhook[] = [];
    for (let i = 0; i < 60; i++) {
      const d = pick(served);
      const sub = d.subresources?.length && rnd(4) === 0 ? pick(d.subresources).name : "";
      // No subresource is deleted (the apiserver serves DELETE on none: 405 before admission).
      const op =
        sub === "exec" || sub === "attach"
          ? "CONNECT"
          : pick(sub ? ["CREATE", "UPDATE"] : ["CREATE", "UPDATE", "DELETE"]);
      const key = pick(["env", "runlevel", "team"]);
      hooks.push(
        hook(`h${i}.example.com`, {
          rules: [
            {
              operations: rnd(3) === 0 ? ["*"] : [op],
              apiGroups: [rnd(3) === 0 ? "*" : d.group],
              apiVersions: [rnd(3) === 0 ? "*" : d.version],
              resources: [sub ? `${d.resource}/${sub}` : rnd(4) === 0 ? "*" : d.resource],
              scope: pick(["*", d.namespaced ? "Namespaced" : "Cluster"]),
            },
          ],
          namespaceSelector: pick([
            {},
            { matchLabels: { [key]: pick(["prod", "0", "a"]) } },
            { matchExpressions: [{ key, operator: "NotIn", values: ["0", "prod"] }] },
            { matchExpressions: [{ key, operator: "Exists" }] },
            { matchExpressions: [{ key, operator: "DoesNotExist" }] },
          ]),
          objectSelector: pick([
            {},
            { matchLabels: { app: "web" } },
            { matchExpressions: [{ key: "app", operator: "In", values: ["a", "b"] }] },
          ]),
        }),
      );
    }
    const live = liveOf(validatingSnapshot(hooks));
    const missed = hooks
      .map((h) => h.name)
      .filter((name) => {
        const ex = exampleFor(target(name), live);
        return !(ex.found && ex.called && calledBy(live, ex).includes(name));
      });
    expect(missed).toEqual([]);
  });
});

describe("labels that satisfy selectors", () => {
  const sel = (s: Parameters<typeof compileSelector>[0]) => compileSelector(s, "everything");

  it("keeps what already satisfies, replaces excluded values, drops what must be absent", () => {
    expect(
      labelsSatisfying(
        [
          sel({
            matchExpressions: [
              { key: "runlevel", operator: "NotIn", values: ["0", "1"] },
              { key: "zone", operator: "Exists" },
              { key: "legacy", operator: "DoesNotExist" },
            ],
          }),
          sel({ matchLabels: { keep: "yes" } }),
        ],
        { runlevel: "0", zone: "eu", legacy: "true", keep: "yes", other: "x" },
      ),
    ).toEqual({ zone: "eu", keep: "yes", other: "x" });
  });

  it("intersects In lists across selectors; contradictions have no answer", () => {
    const a = sel({ matchExpressions: [{ key: "t", operator: "In", values: ["a", "b"] }] });
    const b = sel({ matchExpressions: [{ key: "t", operator: "In", values: ["b", "c"] }] });
    const c = sel({ matchExpressions: [{ key: "t", operator: "In", values: ["c"] }] });
    expect(labelsSatisfying([a, b])).toEqual({ t: "b" });
    expect(labelsSatisfying([a, c])).toBeUndefined();
    expect(
      labelsSatisfying([sel({ matchExpressions: [{ key: "e", operator: "Exists" }] })], {}),
    ).toEqual({ e: "example" });
    expect(
      labelsSatisfying([
        sel({
          matchExpressions: [
            { key: "e", operator: "Exists" },
            { key: "e", operator: "NotIn", values: ["example"] },
          ],
        }),
      ]),
    ).toEqual({ e: "example-example" });
  });
});

describe("the predict page's `for` parameter", () => {
  it("round-trips webhooks and policies, and refuses anything else", () => {
    const t: HookTarget = {
      source: "MutatingWebhookConfiguration",
      configuration: "istio-sidecar-injector",
      name: "namespace.sidecar-injector.istio.io",
    };
    expect(parseHookTarget(hookTargetParam(t))).toEqual(t);
    expect(parseHookTarget("ValidatingAdmissionPolicy/replicas/")).toEqual({
      source: "ValidatingAdmissionPolicy",
      configuration: "replicas",
      name: "",
    });
    for (const bad of [
      null,
      "",
      "Pod/x/y",
      "ValidatingWebhookConfiguration/cfg/",
      "ValidatingWebhookConfiguration//name",
      "ValidatingWebhookConfiguration",
      `ValidatingWebhookConfiguration/cfg/${"x".repeat(2000)}`,
    ])
      expect(parseHookTarget(bad)).toBeUndefined();
  });

  it("links a hook's predict page; a conversion webhook gets the bare page", () => {
    const href = predictHref({
      source: "ValidatingWebhookConfiguration",
      configuration: "a&b",
      name: "x.example.com",
    });
    expect(href).toBe("/predict?for=ValidatingWebhookConfiguration%2Fa%26b%2Fx.example.com");
    expect(parseHookTarget(new URLSearchParams(href.split("?")[1]).get("for"))).toEqual({
      source: "ValidatingWebhookConfiguration",
      configuration: "a&b",
      name: "x.example.com",
    });
    expect(predictHref({ source: "CustomResourceDefinition", configuration: "c", name: "h" })).toBe(
      "/predict",
    );
  });
});
