import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { createMatchContext } from "@/lib/admission/matching/match-context";
import {
  explainRules,
  matchPolicyBinding,
  matchWebhook,
  type HookMatch,
} from "@/lib/admission/matching/match";
import { makeRequest, type AdmissionRequest } from "@/lib/admission/model/request";
import { hook, validatingSnapshot } from "@/lib/admission/model/test-helpers";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { V1ValidatingWebhook } from "@/lib/k8s/types";

const pod = (ns = "default", labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: ns, labels },
});

const podCreate = (extra: Partial<AdmissionRequest> = {}): AdmissionRequest =>
  makeRequest({
    resource: "pods",
    operation: "CREATE",
    kind: { kind: "Pod" },
    namespace: "default",
    name: "p",
    object: pod(),
    ...extra,
  });

function run(
  h: V1ValidatingWebhook,
  r: AdmissionRequest,
  extra: Partial<AdmissionSnapshot> = {},
): HookMatch {
  const s = compileSnapshot(validatingSnapshot([h], extra));
  return matchWebhook(s.validating[0]!, createMatchContext(r, s));
}

const rule = (r: Record<string, unknown>) => [
  { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], ...r },
];

describe("rules (predicates/rules/rules.go Matcher.Matches)", () => {
  const table: Array<{
    mirrors: string;
    rules: ReturnType<typeof rule>;
    req: AdmissionRequest;
    want: string;
    field?: string;
  }> = [
    {
      mirrors: "operation(): exact",
      rules: rule({ operations: ["CREATE"] }),
      req: podCreate(),
      want: "call",
    },
    {
      mirrors: "operation(): mismatch",
      rules: rule({ operations: ["UPDATE"] }),
      req: podCreate(),
      want: "skip",
    },
    {
      mirrors: 'group(): core is ""',
      rules: rule({ apiGroups: ["apps"] }),
      req: podCreate(),
      want: "skip",
    },
    {
      mirrors: "version(): exact",
      rules: rule({ apiVersions: ["v2"] }),
      req: podCreate(),
      want: "skip",
    },
    {
      mirrors: "resource(): '*' excludes subresources",
      rules: rule({ resources: ["*"] }),
      req: podCreate({ subresource: "status", operation: "UPDATE" }),
      want: "skip",
    },
    {
      mirrors: "resource(): 'pods/*' also matches pods itself",
      rules: rule({ resources: ["pods/*"] }),
      req: podCreate(),
      want: "call",
    },
    {
      mirrors: "resource(): '*/*' matches subresources",
      rules: rule({ resources: ["*/*"] }),
      req: podCreate({
        subresource: "exec",
        operation: "CONNECT",
        object: { kind: "PodExecOptions" },
      }),
      want: "call",
    },
    {
      mirrors: "resource(): '*/scale'",
      rules: rule({ resources: ["*/scale"] }),
      req: makeRequest({
        group: "apps",
        resource: "deployments",
        subresource: "scale",
        operation: "UPDATE",
        namespace: "default",
        kind: { group: "autoscaling", kind: "Scale" },
      }),
      want: "call",
    },
    {
      mirrors: "scope(): Namespaced excludes v1 namespaces",
      rules: rule({ scope: "Namespaced" }),
      req: makeRequest({
        resource: "namespaces",
        operation: "CREATE",
        namespace: "x",
        kind: { kind: "Namespace" },
        object: { metadata: { name: "x" } },
      }),
      want: "skip",
    },
    {
      mirrors: "scope(): Cluster includes v1 namespaces",
      rules: rule({ scope: "Cluster" }),
      req: makeRequest({
        resource: "namespaces",
        operation: "CREATE",
        namespace: "x",
        kind: { kind: "Namespace" },
        object: { metadata: { name: "x" } },
      }),
      want: "call",
    },
    {
      mirrors: "scope(): Cluster excludes namespaced pods",
      rules: rule({ scope: "Cluster" }),
      req: podCreate(),
      want: "skip",
    },
    {
      mirrors: "scope(): unknown scope matches nothing (default branch)",
      rules: rule({ scope: "Bogus" }),
      req: podCreate(),
      want: "skip",
    },
  ];
  it.each(table)("$mirrors", ({ rules, req, want }) => {
    expect(run(hook("h", { rules }), req).kind).toBe(want);
  });
});

describe("namespaceSelector (predicates/namespace/matcher.go MatchNamespaceSelector)", () => {
  const notRunlevel01 = {
    matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
  };
  it("skips a namespace whose labels fail, naming the label", () => {
    const m = run(
      hook("h", { namespaceSelector: notRunlevel01 }),
      podCreate({ namespace: "kube-system", object: pod("kube-system") }),
    );
    expect(m).toMatchObject({
      kind: "skip",
      reason: { code: "namespace-selector", namespace: "kube-system" },
    });
  });
  it("cluster-scoped resources always match (len(namespace)==0 && resource != namespaces)", () => {
    const r = makeRequest({
      resource: "nodes",
      operation: "CREATE",
      kind: { kind: "Node" },
      object: { metadata: { name: "n" } },
    });
    expect(
      run(hook("h", { namespaceSelector: { matchLabels: { x: "y" } }, rules: rule({}) }), r).kind,
    ).toBe("call");
  });
  it("Namespace CREATE uses the new object's labels (GetNamespaceLabels)", () => {
    const r = makeRequest({
      resource: "namespaces",
      operation: "CREATE",
      namespace: "new",
      kind: { kind: "Namespace" },
      object: { metadata: { name: "new", labels: { runlevel: "0" } } },
    });
    expect(run(hook("h", { namespaceSelector: notRunlevel01, rules: rule({}) }), r).kind).toBe(
      "skip",
    );
  });
  it("Namespace DELETE uses the stored namespace's labels", () => {
    const r = makeRequest({
      resource: "namespaces",
      operation: "DELETE",
      namespace: "kube-system",
      name: "kube-system",
      kind: { kind: "Namespace" },
      oldObject: { metadata: { name: "kube-system", labels: {} } },
    });
    expect(run(hook("h", { namespaceSelector: notRunlevel01, rules: rule({}) }), r).kind).toBe(
      "skip",
    );
  });
  it("a missing namespace fails with 404 only when the rules matched (ShouldCallHook)", () => {
    const sel = { matchLabels: { a: "b" } };
    expect(
      run(hook("h", { namespaceSelector: sel }), podCreate({ namespace: "ghost" })),
    ).toMatchObject({
      kind: "fail",
      failure: { status: 404, message: 'namespaces "ghost" not found' },
    });
    expect(
      run(
        hook("h", { namespaceSelector: sel, rules: rule({ resources: ["secrets"] }) }),
        podCreate({ namespace: "ghost" }),
      ).kind,
    ).toBe("skip");
  });
  it("an empty selector needs no namespace lookup (selector.Empty())", () => {
    expect(run(hook("h"), podCreate({ namespace: "ghost" })).kind).toBe("call");
  });
});

describe("objectSelector (predicates/object/matcher.go MatchObjectSelector)", () => {
  const sel = { matchLabels: { app: "web" } };
  it.each([
    {
      mirrors: "new object matches",
      req: podCreate({ object: pod("default", { app: "web" }) }),
      want: "call",
    },
    {
      mirrors: "old object matches on UPDATE",
      req: podCreate({
        operation: "UPDATE",
        object: pod(),
        oldObject: pod("default", { app: "web" }),
      }),
      want: "call",
    },
    {
      mirrors: "DELETE: only the old object counts",
      req: podCreate({
        operation: "DELETE",
        object: null,
        oldObject: pod("default", { app: "web" }),
      }),
      want: "call",
    },
    {
      mirrors: "neither matches",
      req: podCreate({ operation: "UPDATE", object: pod(), oldObject: pod() }),
      want: "skip",
    },
    {
      mirrors: "object without metadata (connect options) never matches",
      req: podCreate({
        operation: "CONNECT",
        subresource: "exec",
        object: { kind: "PodExecOptions" },
      }),
      want: "skip",
    },
  ])("$mirrors", ({ req, want }) => {
    expect(
      run(hook("h", { objectSelector: sel, rules: rule({ resources: ["*/*"] }) }), req).kind,
    ).toBe(want);
  });
});

describe("matchPolicy Equivalent (ShouldCallHook equivalent loop)", () => {
  const discovery = [
    {
      group: "autoscaling",
      version: "v1",
      resource: "horizontalpodautoscalers",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
    },
    {
      group: "autoscaling",
      version: "v2",
      resource: "horizontalpodautoscalers",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
    },
  ];
  const req = makeRequest({
    group: "autoscaling",
    version: "v2",
    resource: "horizontalpodautoscalers",
    operation: "CREATE",
    namespace: "default",
    kind: { kind: "HorizontalPodAutoscaler" },
    object: { metadata: { name: "h" } },
  });
  const rules = [
    {
      operations: ["CREATE"],
      apiGroups: ["autoscaling"],
      apiVersions: ["v1"],
      resources: ["horizontalpodautoscalers"],
    },
  ];
  it("calls the hook with the converted version", () => {
    const m = run(hook("h", { rules }), req, { discovery });
    expect(m).toMatchObject({
      kind: "call",
      via: { converted: true, kind: { version: "v1" }, resource: { version: "v1" } },
    });
  });
  it("Exact does not convert", () => {
    expect(run(hook("h", { rules, matchPolicy: "Exact" }), req, { discovery }).kind).toBe("skip");
  });
  it("v1beta1 configurations default to Exact (SetDefaults v1beta1)", () => {
    const s = compileSnapshot({
      validatingWebhookConfigurations: [
        {
          apiVersion: "admissionregistration.k8s.io/v1beta1",
          metadata: { name: "c" },
          webhooks: [hook("h", { rules })],
        },
      ],
      discovery,
    });
    expect(s.validating[0]).toMatchObject({
      failurePolicy: "Ignore",
      timeoutSeconds: 30,
      match: { matchPolicy: "Exact" },
    });
    expect(matchWebhook(s.validating[0]!, createMatchContext(req, s)).kind).toBe("skip");
  });

  describe("a subresource only some versions serve (EquivalentResourcesFor(resource, subresource))", () => {
    // v1 serves status, v2 serves no subresources: v2 is not an equivalent of v1 …/status.
    const crd = [
      {
        group: "example.com",
        version: "v1",
        resource: "widgets",
        kind: "Widget",
        namespaced: true,
        subresources: [{ name: "status" }],
      },
      {
        group: "example.com",
        version: "v2",
        resource: "widgets",
        kind: "Widget",
        namespaced: true,
      },
    ];
    const update = (subresource: string) =>
      makeRequest({
        group: "example.com",
        version: "v1",
        resource: "widgets",
        subresource,
        operation: "UPDATE",
        namespace: "default",
        name: "w",
        kind: { kind: "Widget" },
        object: { metadata: { name: "w" } },
        oldObject: { metadata: { name: "w" } },
      });
    const v2 = [
      {
        operations: ["UPDATE"],
        apiGroups: ["example.com"],
        apiVersions: ["v2"],
        resources: ["*/*"],
      },
    ];
    it("a webhook whose rules name only the version without it is not called", () => {
      expect(run(hook("h", { rules: v2 }), update("status"), { discovery: crd })).toEqual({
        kind: "skip",
        reason: { code: "rules" },
      });
    });
    it("the resource itself still converts to that version", () => {
      expect(run(hook("h", { rules: v2 }), update(""), { discovery: crd })).toMatchObject({
        kind: "call",
        via: { converted: true, resource: { version: "v2" }, kind: { version: "v2" } },
      });
    });
    it("a policy whose constraints name only that version does not match", () => {
      const s = compileSnapshot({
        validatingAdmissionPolicies: [
          {
            metadata: { name: "p" },
            spec: {
              matchConstraints: { resourceRules: v2 },
              validations: [{ expression: "false" }],
            },
          },
        ],
        validatingAdmissionPolicyBindings: [
          { metadata: { name: "b" }, spec: { policyName: "p", validationActions: ["Deny"] } },
        ],
        namespaces: { default: {} },
        discovery: crd,
      });
      const ctx = createMatchContext(update("status"), s);
      expect(matchPolicyBinding(s.validatingPolicies[0]!, ctx)).toMatchObject({
        kind: "skip",
        reason: { code: "rules" },
      });
    });
    it("the skip names no equivalent for the subresource", () => {
      const s = compileSnapshot(validatingSnapshot([hook("h", { rules: v2 })], { discovery: crd }));
      const ctx = createMatchContext(update("status"), s);
      expect(ctx.equivalents.map((e) => e.gvr.version)).toEqual(["v1"]);
      expect(explainRules(s.validating[0]!.match.rules, "Equivalent", ctx)).toHaveLength(1);
    });
  });
});

describe("matchConditions (matchconditions/matcher.go Match)", () => {
  const conds = (...e: string[]) => e.map((expression, i) => ({ name: `c${i}`, expression }));
  it.each([
    {
      mirrors: "all true → call",
      mc: conds("request.operation == 'CREATE'", "object.metadata.name == 'p'"),
      fp: "Fail",
      want: "call",
    },
    {
      mirrors: "any false → skip",
      mc: conds("true", "request.userInfo.username == 'nobody'"),
      fp: "Fail",
      want: "skip",
    },
    {
      mirrors: "false wins over an error",
      mc: conds("object.metadata.labels.missing == 'x'", "false"),
      fp: "Fail",
      want: "skip",
    },
    {
      mirrors: "error with Fail → 403",
      mc: conds("object.metadata.labels.missing == 'x'"),
      fp: "Fail",
      want: "fail",
    },
    {
      mirrors: "error with Ignore → skip",
      mc: conds("object.metadata.labels.missing == 'x'"),
      fp: "Ignore",
      want: "skip",
    },
    {
      mirrors: "authorizer cannot be evaluated offline → indeterminate",
      mc: conds("authorizer.group('').resource('pods').check('get').allowed()"),
      fp: "Fail",
      want: "indeterminate",
    },
    {
      mirrors: "a library this evaluator lacks → indeterminate",
      mc: conds("quantity('1Gi').isGreaterThan(quantity('1Mi'))"),
      fp: "Fail",
      want: "indeterminate",
    },
    {
      mirrors: "indeterminate but another is false → skip",
      mc: conds("authorizer.group('').resource('pods').check('get').allowed()", "false"),
      fp: "Fail",
      want: "skip",
    },
    {
      mirrors: "oldObject is null on CREATE",
      mc: conds("oldObject == null"),
      fp: "Fail",
      want: "call",
    },
    {
      mirrors: "integers are CEL ints",
      mc: conds("object.spec.replicas + 1 == 4"),
      fp: "Fail",
      want: "call",
    },
  ])("$mirrors", ({ mc, fp, want }) => {
    const obj = { ...pod(), spec: { replicas: 3 } };
    expect(
      run(hook("h", { matchConditions: mc, failurePolicy: fp }), podCreate({ object: obj })).kind,
    ).toBe(want);
  });
});

describe("dry run (dispatcher callHook IsDryRun check)", () => {
  it.each([
    { sideEffects: "None", fp: "Fail", want: "call" },
    { sideEffects: "NoneOnDryRun", fp: "Fail", want: "call" },
    { sideEffects: "Unknown", fp: "Ignore", want: "fail" },
    { sideEffects: "Some", fp: "Fail", want: "fail" },
  ])("sideEffects $sideEffects, failurePolicy $fp → $want", ({ sideEffects, fp, want }) => {
    expect(
      run(hook("h", { sideEffects, failurePolicy: fp }), podCreate({ dryRun: true })).kind,
    ).toBe(want);
  });
});

describe("policies (policy/matching/matching.go Matches, policy_dispatcher.go Dispatch)", () => {
  const snap = (
    bindingSpec: Record<string, unknown>,
    policySpec: Record<string, unknown> = {},
  ): AdmissionSnapshot => ({
    validatingAdmissionPolicies: [
      {
        metadata: { name: "p" },
        spec: {
          matchConstraints: {
            resourceRules: [
              {
                operations: ["CREATE", "UPDATE"],
                apiGroups: [""],
                apiVersions: ["v1"],
                resources: ["pods"],
              },
            ],
          },
          validations: [{ expression: "true" }],
          ...policySpec,
        },
      },
    ],
    validatingAdmissionPolicyBindings: [
      {
        metadata: { name: "b" },
        spec: { policyName: "p", validationActions: ["Deny"], ...bindingSpec },
      },
    ],
    namespaces: { default: { "kubernetes.io/metadata.name": "default" }, prod: { env: "prod" } },
  });
  const m = (s: AdmissionSnapshot, r: AdmissionRequest) => {
    const c = compileSnapshot(s);
    return matchPolicyBinding(c.validatingPolicies[0]!, createMatchContext(r, c));
  };
  it("binding without matchResources matches what the policy matches", () => {
    expect(m(snap({}), podCreate()).kind).toBe("call");
  });
  it("binding matchResources are intersected", () => {
    const s = snap({ matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } } });
    expect(m(s, podCreate()).kind).toBe("skip");
    expect(m(s, podCreate({ namespace: "prod" })).kind).toBe("call");
  });
  it("excludeResourceRules win (matchesResourceRules on exclusions first)", () => {
    const s = snap(
      {},
      {
        matchConstraints: {
          resourceRules: [
            { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] },
          ],
          excludeResourceRules: [
            { operations: ["*"], apiGroups: [""], apiVersions: ["*"], resources: ["pods"] },
          ],
        },
      },
    );
    expect(m(s, podCreate())).toMatchObject({ kind: "skip", reason: { code: "exclude-rule" } });
  });
  it("resourceNames compare with the request name (empty on generateName creates)", () => {
    const s = snap(
      {},
      {
        matchConstraints: {
          resourceRules: [
            {
              operations: ["*"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["pods"],
              resourceNames: ["p"],
            },
          ],
        },
      },
    );
    expect(m(s, podCreate()).kind).toBe("call");
    expect(m(s, podCreate({ name: "" })).kind).toBe("skip");
  });
  it("a binding to a missing policy is never used", () => {
    const s: AdmissionSnapshot = { ...snap({}), validatingAdmissionPolicies: [] };
    expect(m(s, podCreate())).toMatchObject({ kind: "skip", reason: { code: "policy-missing" } });
  });
  it("a missing namespace is a configuration error under failurePolicy (policy, not webhook, rule)", () => {
    const s = snap(
      {},
      {
        matchConstraints: {
          namespaceSelector: { matchLabels: { a: "b" } },
          resourceRules: [
            { operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
          ],
        },
        failurePolicy: "Ignore",
      },
    );
    expect(m(s, podCreate({ namespace: "ghost" }))).toMatchObject({
      kind: "skip",
      reason: { code: "configuration-error-ignored" },
    });
  });
});
