import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { predict } from "@/lib/admission/prediction/predict";
import { reportOf } from "@/lib/admission/report/predict-report";
import { serializeSkipReason } from "@/lib/admission/matching/explain";
import { makeRequest } from "@/lib/admission/model/request";
import { hook, validatingSnapshot } from "@/lib/admission/model/test-helpers";
import { paramKindKey, type ParamObjects } from "@/lib/admission/model/params";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

const any = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];

describe("exclusions before any hook (generic/webhook.go Dispatch, policy/generic/plugin.go Dispatch)", () => {
  it.each([
    {
      mirrors: "IsExemptAdmissionConfigurationResource (by kind)",
      req: makeRequest({
        group: "admissionregistration.k8s.io",
        resource: "validatingwebhookconfigurations",
        operation: "DELETE",
        name: "x",
        kind: { kind: "ValidatingWebhookConfiguration" },
      }),
      webhooks: "admission-configuration",
      policies: undefined,
    },
    {
      mirrors: "policy admissionResources (by resource)",
      req: makeRequest({
        group: "admissionregistration.k8s.io",
        resource: "validatingadmissionpolicies",
        operation: "DELETE",
        name: "x",
        kind: { kind: "ValidatingAdmissionPolicy" },
      }),
      webhooks: "admission-configuration",
      policies: "admission-configuration",
    },
    {
      mirrors: "exclusion.Excluded: tokenreviews",
      req: makeRequest({
        group: "authentication.k8s.io",
        resource: "tokenreviews",
        operation: "CREATE",
        kind: { kind: "TokenReview" },
        object: { metadata: {} },
      }),
      webhooks: "virtual-resource",
      policies: "virtual-resource",
    },
    {
      mirrors: "pods are not exempt",
      req: makeRequest({
        resource: "pods",
        operation: "CREATE",
        namespace: "default",
        kind: { kind: "Pod" },
        object: { metadata: {} },
      }),
      webhooks: undefined,
      policies: undefined,
    },
  ])("$mirrors", ({ req, webhooks, policies }) => {
    const p = predict(req, validatingSnapshot([hook("h", { rules: any })])).prediction;
    expect(p.exclusions.webhooks?.code).toBe(webhooks);
    expect(p.exclusions.policies?.code).toBe(policies);
    expect(p.calls.length).toBe(webhooks ? 0 : 1);
  });

  it("with ExcludeAdmissionWebhookVirtualResources off, webhooks see tokenreviews", () => {
    const req = makeRequest({
      group: "authentication.k8s.io",
      resource: "tokenreviews",
      operation: "CREATE",
      kind: { kind: "TokenReview" },
      object: { metadata: {} },
    });
    expect(
      predict(
        req,
        validatingSnapshot([hook("h", { rules: any })], { excludeVirtualResources: false }),
      ).prediction.calls,
    ).toHaveLength(1);
  });

  // ExcludeAdmissionWebhookVirtualResources exists from 1.37 (beta, on): 1.35 and 1.36 call
  // webhooks for tokenreviews; policies skip them in every minor. Proven on each minor's
  // apiserver by the served-operations oracle (npm run test:versions).
  it.each([
    { minor: "1.35", webhookCalled: true },
    { minor: "1.36", webhookCalled: true },
    { minor: "1.37", webhookCalled: false },
  ] as const)("on Kubernetes $minor webhooks see tokenreviews: $webhookCalled", (c) => {
    const req = makeRequest({
      group: "authentication.k8s.io",
      resource: "tokenreviews",
      operation: "CREATE",
      kind: { kind: "TokenReview" },
      object: { metadata: {} },
    });
    const snapshot = {
      ...validatingSnapshot([hook("h", { rules: any })]),
      kubernetes: { minor: c.minor, source: "flag" as const },
    };
    const p = predict(req, snapshot).prediction;
    expect(p.calls).toHaveLength(c.webhookCalled ? 1 : 0);
    expect(p.exclusions.webhooks?.code).toBe(c.webhookCalled ? undefined : "virtual-resource");
    expect(p.exclusions.policies?.code).toBe("virtual-resource");
  });
});

describe("prediction output", () => {
  const s = compileSnapshot(
    validatingSnapshot([
      hook("called"),
      hook("wrong-op", {
        rules: [
          { operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
      }),
      hook("ns", {
        namespaceSelector: {
          matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
        },
      }),
      hook("cond", {
        matchConditions: [
          { name: "authz", expression: "authorizer.requestResource.check('x').allowed()" },
        ],
      }),
    ]),
  );
  const req = makeRequest({
    resource: "pods",
    operation: "CREATE",
    namespace: "kube-system",
    name: "p",
    kind: { kind: "Pod" },
    object: { metadata: { name: "p" } },
  });
  const { prediction: p, explainer } = predict(req, s);

  it("lists calls, skips with sentences and indeterminate hooks", () => {
    expect(p.calls.map((c) => c.key)).toEqual(["ValidatingWebhookConfiguration:cfg/called/0"]);
    expect(p.skips.map((x) => [x.hook.name, x.reason.code])).toEqual([
      ["wrong-op", "rules"],
      ["ns", "namespace-selector"],
    ]);
    expect(explainer.skip(p.skips[0]!).message).toBe(
      "no rule matches CREATE core/v1/pods: rule 0: operation CREATE is not in [DELETE]",
    );
    expect(explainer.skip(p.skips[1]!).message).toContain(
      'label runlevel is "0", which is in (0,1)',
    );
    expect(p.indeterminate).toMatchObject([{ hook: { name: "cond" }, condition: "authz" }]);
  });

  it("serialises skips with their explanation", () => {
    const skip = p.skips[1]!;
    const json = JSON.parse(
      JSON.stringify({ reason: serializeSkipReason(skip.reason), ...explainer.skip(skip) }),
    ) as { message: string; reason: { namespace: unknown[] } };
    expect(json.message).toContain("namespaceSelector");
    expect(json.reason.namespace).toHaveLength(1);
  });

  it("counts an undecided hook in the worst case", () => {
    expect(p.worstCaseLatencySeconds).toBe(10);
  });

  it("a mutating failure stops the chain (dispatcher returns the StatusError)", () => {
    // A CONNECT reaches the hooks in a namespace that does not exist (NamespaceLifecycle lets
    // it through); the selector's namespace lookup then fails.
    const exec = {
      rules: [
        { operations: ["CONNECT"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec"] },
      ],
    };
    const snap = {
      namespaces: {},
      mutatingWebhookConfigurations: [
        {
          metadata: { name: "a" },
          webhooks: [
            hook("first", exec),
            hook("sel", { ...exec, namespaceSelector: { matchLabels: { a: "b" } } }),
            hook("after", exec),
          ],
        },
      ],
      validatingWebhookConfigurations: [{ metadata: { name: "v" }, webhooks: [hook("v", exec)] }],
    };
    const out = predict(
      makeRequest({
        resource: "pods",
        subresource: "exec",
        operation: "CONNECT",
        namespace: "ghost",
        name: "web",
        kind: { kind: "PodExecOptions" },
        object: { kind: "PodExecOptions", apiVersion: "v1" },
      }),
      snap,
    ).prediction;
    expect(out.calls.map((c) => c.hook.name)).toEqual(["first"]);
    expect(out.failure).toMatchObject({ status: 404, hook: { name: "sel" } });
    expect(out.skips.map((x) => `${x.hook.name}:${x.reason.code}`)).toEqual([
      "after:not-reached",
      "v:not-reached",
    ]);
  });
});

describe("NamespaceLifecycle (namespace/lifecycle/admission.go Admit) runs before every hook", () => {
  const snap = (namespaces?: Record<string, Record<string, string>>): AdmissionSnapshot => ({
    ...(namespaces ? { namespaces } : {}),
    mutatingWebhookConfigurations: [
      { metadata: { name: "m" }, webhooks: [hook("m.example.com", { rules: any })] },
    ],
    validatingWebhookConfigurations: [
      { metadata: { name: "v" }, webhooks: [hook("v.example.com", { rules: any })] },
    ],
  });
  const create = (namespace: string) =>
    makeRequest({
      resource: "configmaps",
      operation: "CREATE",
      namespace,
      name: "c",
      kind: { kind: "ConfigMap" },
      object: { metadata: { name: "c", namespace } },
    });

  it("a CREATE in a namespace the cluster does not have: 404 before any hook", () => {
    const p = predict(create("ghost"), snap({ default: {} })).prediction;
    expect(p.calls).toEqual([]);
    expect(p.failure).toBeUndefined();
    expect(p.rejectedBeforeHooks).toEqual({
      plugin: "NamespaceLifecycle",
      status: 404,
      message: 'namespaces "ghost" not found',
    });
    expect(p.skips.map((x) => `${x.hook.name}:${x.reason.code}`)).toEqual([
      "m.example.com:excluded",
      "v.example.com:excluded",
    ]);
    expect(p.worstCaseLatencySeconds).toBe(0);
  });

  it("the report says the request is not admitted", () => {
    const p = predict(create("ghost"), snap({ default: {} }));
    const r = reportOf(p, {} as Parameters<typeof reportOf>[1], []);
    expect(r.admitted).toBe(false);
    expect(r.rejectedBeforeHooks?.message).toBe('namespaces "ghost" not found');
  });

  it.each([
    { what: "an existing namespace", req: create("default"), calls: 2 },
    {
      what: "an UPDATE (let through)",
      req: makeRequest({ ...create("ghost"), operation: "UPDATE", kind: { kind: "ConfigMap" } }),
      calls: 2,
    },
    {
      what: "a CONNECT (not handled by the plugin)",
      req: makeRequest({
        resource: "pods",
        subresource: "exec",
        operation: "CONNECT",
        namespace: "ghost",
        name: "web",
        kind: { kind: "PodExecOptions" },
        object: { kind: "PodExecOptions", apiVersion: "v1" },
      }),
      calls: 2,
    },
    {
      what: "a localsubjectaccessreview (an access review)",
      req: makeRequest({
        group: "authorization.k8s.io",
        resource: "localsubjectaccessreviews",
        operation: "CREATE",
        namespace: "ghost",
        kind: { kind: "LocalSubjectAccessReview" },
        object: { metadata: { namespace: "ghost" } },
      }),
      // A virtual auth resource: no webhook sees it either way.
      calls: 0,
    },
  ])("not for $what", ({ req, calls }) => {
    const p = predict(req, snap({ default: {} })).prediction;
    expect(p.rejectedBeforeHooks).toBeUndefined();
    expect(p.exclusions.webhooks?.code).not.toBe("namespace-not-found");
    expect(p.calls.length).toBe(calls);
  });

  it("not when the namespaces are not known at all", () => {
    const p = predict(create("ghost"), snap()).prediction;
    expect(p.rejectedBeforeHooks).toBeUndefined();
    expect(p.calls.length).toBe(2);
  });
});

describe("NamespaceLifecycle: creates in a Terminating namespace, deletes of immortal namespaces", () => {
  const snap: AdmissionSnapshot = {
    namespaces: { default: {}, doomed: {}, "kube-public": {} },
    terminatingNamespaces: ["doomed"],
    mutatingWebhookConfigurations: [
      { metadata: { name: "m" }, webhooks: [hook("m.example.com", { rules: any })] },
    ],
    validatingWebhookConfigurations: [
      { metadata: { name: "v" }, webhooks: [hook("v.example.com", { rules: any })] },
    ],
    validatingAdmissionPolicies: [
      {
        metadata: { name: "p" },
        spec: {
          matchConstraints: { resourceRules: any },
          validations: [{ expression: "true" }],
        },
      },
    ],
    validatingAdmissionPolicyBindings: [
      { metadata: { name: "pb" }, spec: { policyName: "p", validationActions: ["Deny"] } },
    ],
  };
  const configMap = (namespace: string, metadata: Record<string, unknown>, name?: string) =>
    makeRequest({
      resource: "configmaps",
      operation: "CREATE",
      namespace,
      ...(name !== undefined ? { name } : {}),
      kind: { kind: "ConfigMap" },
      object: { metadata: { ...metadata, namespace } },
    });
  const terminated = (what: string) =>
    `${what} is forbidden: unable to create new content in namespace doomed because it is being terminated`;

  it("a CREATE in a Terminating namespace: 403 before any hook, named after the object", () => {
    const p = predict(configMap("doomed", { name: "c" }, "c"), snap).prediction;
    expect(p.rejectedBeforeHooks).toEqual({
      plugin: "NamespaceLifecycle",
      status: 403,
      message: terminated('configmaps "c"'),
    });
    expect(p.calls).toEqual([]);
    expect(p.failure).toBeUndefined();
    expect(p.exclusions.webhooks?.code).toBe("namespace-terminating");
    expect(p.exclusions.policies?.code).toBe("namespace-terminating");
    expect(p.skips.map((x) => `${x.hook.name}:${x.reason.code}`).sort()).toEqual([
      "m.example.com:excluded",
      "pb:excluded",
      "v.example.com:excluded",
    ]);
    const r = reportOf(predict(configMap("doomed", { name: "c" }, "c"), snap), {} as never, []);
    expect(r.admitted).toBe(false);
  });

  it.each([
    {
      what: "the generateName when there is no name",
      metadata: { generateName: "gen-" },
      name: 'configmaps "gen-"',
    },
    { what: "Unknown with neither", metadata: {}, name: 'configmaps "Unknown"' },
  ])("the refusal names $what (admission errors.go extractResourceName)", ({ metadata, name }) => {
    const p = predict(configMap("doomed", metadata), snap).prediction;
    expect(p.rejectedBeforeHooks?.message).toBe(terminated(name));
  });

  it("a subresource CREATE is named by its parent resource and the path's name", () => {
    const p = predict(
      makeRequest({
        resource: "pods",
        subresource: "eviction",
        operation: "CREATE",
        namespace: "doomed",
        name: "web",
        kind: { group: "policy", version: "v1", kind: "Eviction" },
        object: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "web" } },
      }),
      snap,
    ).prediction;
    expect(p.rejectedBeforeHooks?.message).toBe(terminated('pods "web"'));
  });

  it("a resource outside the core group is named resource.group", () => {
    const p = predict(
      makeRequest({
        group: "apps",
        resource: "deployments",
        operation: "CREATE",
        namespace: "doomed",
        name: "web",
        kind: { group: "apps", kind: "Deployment" },
        object: { metadata: { name: "web" } },
      }),
      snap,
    ).prediction;
    expect(p.rejectedBeforeHooks?.message).toBe(terminated('deployments.apps "web"'));
  });

  it.each([
    {
      what: "an UPDATE",
      req: makeRequest({
        ...configMap("doomed", { name: "c" }, "c"),
        operation: "UPDATE",
        kind: { kind: "ConfigMap" },
      }),
    },
    {
      what: "a DELETE",
      req: makeRequest({
        resource: "configmaps",
        operation: "DELETE",
        namespace: "doomed",
        name: "c",
        kind: { kind: "ConfigMap" },
        oldObject: { metadata: { name: "c", namespace: "doomed" } },
      }),
    },
    {
      what: "a CONNECT",
      req: makeRequest({
        resource: "pods",
        subresource: "exec",
        operation: "CONNECT",
        namespace: "doomed",
        name: "web",
        kind: { kind: "PodExecOptions" },
        object: { kind: "PodExecOptions", apiVersion: "v1" },
      }),
    },
    {
      what: "the Namespace itself (its finalize subresource)",
      req: makeRequest({
        resource: "namespaces",
        subresource: "finalize",
        operation: "UPDATE",
        namespace: "doomed",
        name: "doomed",
        kind: { kind: "Namespace" },
        object: { metadata: { name: "doomed" } },
      }),
    },
    {
      what: "a CREATE in an Active namespace",
      req: configMap("default", { name: "c" }, "c"),
    },
    {
      what: "a localsubjectaccessreview (an access review)",
      req: makeRequest({
        group: "authorization.k8s.io",
        resource: "localsubjectaccessreviews",
        operation: "CREATE",
        namespace: "doomed",
        kind: { kind: "LocalSubjectAccessReview" },
        object: { metadata: { namespace: "doomed" } },
      }),
    },
  ])("lets $what through", ({ req }) => {
    expect(predict(req, snap).prediction.rejectedBeforeHooks).toBeUndefined();
  });

  const deleteNamespace = (name: string) =>
    makeRequest({
      resource: "namespaces",
      operation: "DELETE",
      namespace: name,
      name,
      kind: { kind: "Namespace" },
      oldObject: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
    });

  it.each(["default", "kube-system", "kube-public"])(
    "a DELETE of the immortal namespace %s: 403 before any hook",
    (name) => {
      const p = predict(deleteNamespace(name), snap).prediction;
      expect(p.rejectedBeforeHooks).toEqual({
        plugin: "NamespaceLifecycle",
        status: 403,
        message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      });
      expect(p.calls).toEqual([]);
      expect(p.exclusions.webhooks?.code).toBe("immortal-namespace");
      expect(p.skips.every((x) => x.reason.code === "excluded")).toBe(true);
    },
  );

  it.each([
    { what: "another namespace", req: deleteNamespace("doomed") },
    {
      what: "an UPDATE of kube-public",
      req: makeRequest({
        ...deleteNamespace("kube-public"),
        operation: "UPDATE",
        kind: { kind: "Namespace" },
      }),
    },
    {
      what: "a DELETE of another kind named kube-public",
      req: makeRequest({
        resource: "configmaps",
        operation: "DELETE",
        namespace: "default",
        name: "kube-public",
        kind: { kind: "ConfigMap" },
      }),
    },
  ])("not for $what", ({ req }) => {
    const p = predict(req, snap).prediction;
    expect(p.rejectedBeforeHooks).toBeUndefined();
    expect(p.calls.length).toBeGreaterThan(0);
  });

  it("an immortal namespace is refused even when the namespaces are not known", () => {
    const p = predict(deleteNamespace("kube-system"), {
      ...snap,
      namespaces: undefined,
    }).prediction;
    expect(p.rejectedBeforeHooks?.status).toBe(403);
  });

  it("a compiled snapshot keeps the terminating namespaces", () => {
    const compiled = compileSnapshot(snap);
    expect([...compiled.terminatingNamespaces]).toEqual(["doomed"]);
    expect(
      predict(configMap("doomed", { name: "c" }, "c"), compiled).prediction.rejectedBeforeHooks
        ?.status,
    ).toBe(403);
    expect(compileSnapshot({}).terminatingNamespaces.size).toBe(0);
  });
});

describe("params from live state (policy_dispatcher.go CollectParams)", () => {
  const policy = {
    metadata: { name: "limits" },
    spec: {
      failurePolicy: "Fail",
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      matchConstraints: {
        resourceRules: [
          { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
      },
      validations: [{ expression: "true" }],
    },
  };
  const binding = (name: string, paramRef: Record<string, unknown>) => ({
    metadata: { name },
    spec: { policyName: "limits", validationActions: ["Deny"], paramRef },
  });
  const configMaps: ParamObjects = {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespaced: true,
    objects: [
      { namespace: "team", name: "limits", labels: { tier: "a" } },
      { namespace: "team", name: "other", labels: { tier: "a" } },
      { namespace: "default", name: "limits", labels: {} },
    ],
  };
  const req = (namespace: string) =>
    makeRequest({
      resource: "pods",
      operation: "CREATE",
      namespace,
      kind: { kind: "Pod" },
      object: { metadata: { name: "p" } },
    });
  const snap = (b: ReturnType<typeof binding>, known = true) =>
    validatingSnapshot([], {
      validatingAdmissionPolicies: [policy as never],
      validatingAdmissionPolicyBindings: [b as never],
      ...(known ? { params: [configMaps] } : {}),
    });

  it("Allow with no param found: the binding is not evaluated at all (a skip with the reason)", () => {
    const { prediction: p, explainer } = predict(
      req("team"),
      snap(binding("b", { name: "missing", parameterNotFoundAction: "Allow" })),
    );
    expect(p.calls).toEqual([]);
    expect(p.failure).toBeUndefined();
    const skip = p.skips.find((s) => s.key.includes("limits/b"));
    expect(skip?.reason).toEqual({
      code: "params-not-found",
      where: "ConfigMap missing in namespace team",
    });
    expect(explainer.skip(skip as never).message).toContain("not evaluated");
  });

  it("Deny with no param found: a configuration error through failurePolicy Fail", () => {
    const p = predict(
      req("team"),
      snap(binding("b", { name: "missing", parameterNotFoundAction: "Deny" })),
    ).prediction;
    // Worded as the validating policy plugin words it, with its status (Invalid).
    expect(p.failure).toMatchObject({
      status: 422,
      message:
        "pods \"\" is forbidden: ValidatingAdmissionPolicy 'limits' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    });
  });

  it("two failing bindings: one is the failure, the other also failing (the apiserver names either)", () => {
    const p = predict(
      req("team"),
      validatingSnapshot([], {
        validatingAdmissionPolicies: [policy as never],
        validatingAdmissionPolicyBindings: [
          binding("b1", { name: "missing", parameterNotFoundAction: "Deny" }) as never,
          binding("b2", { name: "gone", parameterNotFoundAction: "Deny" }) as never,
        ],
        params: [configMaps],
      }),
    ).prediction;
    expect(p.failure?.hook.name).toBe("b1");
    expect(p.alsoFailing.map((f) => [f.hook.name, f.status])).toEqual([["b2", 422]]);
  });

  it("a selector counts every matching object in the request's namespace", () => {
    const p = predict(
      req("team"),
      snap(
        binding("b", { selector: { matchLabels: { tier: "a" } }, parameterNotFoundAction: "Deny" }),
      ),
    ).prediction;
    expect(p.calls).toHaveLength(1);
    expect(p.calls[0]?.paramsNote).toBe(
      "evaluated once per param object: 2 found (team/limits, team/other)",
    );
  });

  it("params not read (offline): called, with the conditional note", () => {
    const p = predict(
      req("team"),
      snap(binding("b", { name: "missing", parameterNotFoundAction: "Allow" }), false),
    ).prediction;
    expect(p.calls).toHaveLength(1);
    expect(p.calls[0]?.paramsNote).toContain("params not read");
  });

  it("a namespaced paramKind without namespace on a cluster-scoped request is a configuration error", () => {
    const p = predict(
      makeRequest({
        resource: "nodes",
        operation: "CREATE",
        kind: { kind: "Node" },
        object: { metadata: { name: "n" } },
      }),
      validatingSnapshot([], {
        validatingAdmissionPolicies: [
          {
            ...policy,
            spec: {
              ...policy.spec,
              matchConstraints: {
                resourceRules: [
                  { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] },
                ],
              },
            },
          } as never,
        ],
        validatingAdmissionPolicyBindings: [
          binding("b", { name: "limits", parameterNotFoundAction: "Allow" }) as never,
        ],
        params: [configMaps],
      }),
    ).prediction;
    expect(p.failure?.message).toContain(
      "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
    );
  });
});

describe("a paramKind the cluster does not serve (policy_source.go ensureParamsForPolicyLocked, Dispatch)", () => {
  const constraints = (resources: string[]) => ({
    resourceRules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources }],
  });
  const snap = (
    type: "validating" | "mutating",
    opts: {
      apiVersion?: string;
      failurePolicy?: string;
      resources?: string[];
      bindings?: Array<Record<string, unknown>>;
    } = {},
  ): AdmissionSnapshot => {
    const apiVersion = opts.apiVersion ?? "example.com/v1";
    const policy = {
      metadata: { name: "pk" },
      spec: {
        failurePolicy: opts.failurePolicy ?? "Fail",
        paramKind: { apiVersion, kind: "Nope" },
        matchConstraints: constraints(opts.resources ?? ["configmaps"]),
        ...(type === "validating"
          ? { validations: [{ expression: "true" }] }
          : {
              mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }],
            }),
      },
    };
    const bindings = (opts.bindings ?? [{}]).map((spec, i) => ({
      metadata: { name: `b${i}` },
      spec: {
        policyName: "pk",
        paramRef: { name: "x", parameterNotFoundAction: "Allow" },
        ...(type === "validating" ? { validationActions: ["Deny"] } : {}),
        ...spec,
      },
    }));
    return validatingSnapshot([], {
      ...(type === "validating"
        ? {
            validatingAdmissionPolicies: [policy as never],
            validatingAdmissionPolicyBindings: bindings as never,
          }
        : {
            mutatingAdmissionPolicies: [policy as never],
            mutatingAdmissionPolicyBindings: bindings as never,
          }),
      params: [],
      unservedParamKinds: [paramKindKey(apiVersion, "Nope")],
    });
  };
  const cm = makeRequest({
    resource: "configmaps",
    operation: "CREATE",
    namespace: "team",
    name: "c",
    kind: { kind: "ConfigMap" },
    object: { metadata: { name: "c" } },
  });

  it("validating: every request the policy matches is rejected at policy level (422), whatever the bindings say", () => {
    const p = predict(
      cm,
      snap("validating", {
        // A binding that matches nothing: the policy fails before bindings are looked at.
        bindings: [{ matchResources: { namespaceSelector: { matchLabels: { none: "x" } } } }],
      }),
    ).prediction;
    expect(p.calls).toEqual([]);
    expect(p.failure).toMatchObject({
      stage: "validating-policy",
      status: 422,
      message:
        "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'pk' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'",
    });
  });

  it("is one error of the policy, however many bindings it has", () => {
    const p = predict(cm, snap("validating", { bindings: [{}, {}] })).prediction;
    expect(p.failure?.hook.name).toBe("b0");
    expect(p.alsoFailing).toEqual([]);
  });

  it("names a core-group paramKind as a GroupVersionKind prints it ('/v1, Kind=…')", () => {
    const p = predict(cm, snap("validating", { apiVersion: "v1" })).prediction;
    expect(p.failure?.message).toContain(
      "failed to find resource referenced by paramKind: '/v1, Kind=Nope'",
    );
  });

  it("mutating: worded by the generic dispatcher (403)", () => {
    const p = predict(cm, snap("mutating")).prediction;
    expect(p.failure).toMatchObject({
      stage: "mutating-policy",
      status: 403,
      message:
        "policy \"pk\" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'",
    });
  });

  it("failurePolicy Ignore drops the error: not called, and admitted", () => {
    const { prediction: p, explainer } = predict(
      cm,
      snap("validating", { failurePolicy: "Ignore" }),
    );
    expect(p.failure).toBeUndefined();
    expect(p.calls).toEqual([]);
    const skip = p.skips.find((s) => s.hook.configuration === "pk");
    expect(skip?.reason).toEqual({
      code: "configuration-error-ignored",
      message:
        "failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'",
    });
    expect(explainer.skip(skip as never).message).toContain("failed to find resource");
  });

  it("a request the policy's constraints do not match is not affected", () => {
    const p = predict(cm, snap("validating", { resources: ["secrets"] })).prediction;
    expect(p.failure).toBeUndefined();
    expect(p.skips.find((s) => s.hook.configuration === "pk")?.reason.code).toBe("rules");
  });
});

describe("a generateName create (the name comes after mutating admission)", () => {
  const s = compileSnapshot(
    validatingSnapshot([
      hook("named", { matchConditions: [{ name: "has-name", expression: "has(request.name)" }] }),
      hook("labelled", {
        matchConditions: [{ name: "app", expression: "'app' in object.metadata.labels" }],
      }),
    ]),
  );
  const req = makeRequest({
    resource: "pods",
    operation: "CREATE",
    namespace: "team",
    kind: { kind: "Pod" },
    object: { metadata: { generateName: "web-", labels: { app: "x" } } },
  });
  const { prediction: p } = predict(req, s);

  it("leaves validating conditions that read the name undecided, and decides the rest", () => {
    expect(p.indeterminate).toMatchObject([{ hook: { name: "named" }, condition: "has-name" }]);
    expect(p.calls.map((c) => c.hook.name)).toEqual(["labelled"]);
  });
});

describe("a policy's matchConditions that fail to evaluate (failurePolicy Fail)", () => {
  const rules = [
    { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
  ];
  // request.subResource is absent from a request without a subresource: selecting it is an error.
  const matchConditions = [{ name: "c", expression: "request.subResource == ''" }];
  const validating = (actions: string[]) =>
    validatingSnapshot([], {
      validatingAdmissionPolicies: [
        {
          metadata: { name: "p" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: { resourceRules: rules },
            matchConditions,
            validations: [{ expression: "true" }],
          },
        } as never,
      ],
      validatingAdmissionPolicyBindings: [
        { metadata: { name: "b" }, spec: { policyName: "p", validationActions: actions } } as never,
      ],
    });
  const req = makeRequest({
    resource: "configmaps",
    operation: "CREATE",
    namespace: "team",
    name: "cm",
    kind: { kind: "ConfigMap" },
    object: { metadata: { name: "cm" } },
  });
  const text = "expression 'request.subResource == ''' resulted in error: no such key: subResource";

  it("validating, Warn: evaluated, and its one decision is the error (a warning), not a rejection", () => {
    const p = predict(req, validating(["Warn"])).prediction;
    expect(p.failure).toBeUndefined();
    expect(p.calls).toEqual([
      expect.objectContaining({ stage: "validating-policy", conditionError: text }),
    ]);
  });

  it("validating, Deny: evaluated, and the error rejects the request (422)", () => {
    const p = predict(req, validating(["Deny", "Audit"])).prediction;
    expect(p.calls).toEqual([expect.objectContaining({ conditionError: text })]);
    expect(p.failure).toMatchObject({
      stage: "validating-policy",
      status: 422,
      message: `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ${text}`,
    });
  });

  it("mutating: a configuration error worded by the generic dispatcher (403), and not applied", () => {
    const p = predict(
      req,
      validatingSnapshot([], {
        mutatingAdmissionPolicies: [
          {
            metadata: { name: "m" },
            spec: {
              failurePolicy: "Fail",
              matchConstraints: { resourceRules: rules },
              matchConditions,
              reinvocationPolicy: "Never",
              mutations: [],
            },
          } as never,
        ],
        mutatingAdmissionPolicyBindings: [
          { metadata: { name: "mb" }, spec: { policyName: "m" } } as never,
        ],
      }),
    ).prediction;
    expect(p.calls).toEqual([]);
    expect(p.failure).toMatchObject({
      stage: "mutating-policy",
      status: 403,
      message: `policy 'm' with binding 'mb' denied request: ${text}`,
    });
  });
});

describe("a Namespace as the apiserver decodes it (SetDefaults_Namespace)", () => {
  const create = (labels?: Record<string, string>, name = "fresh") =>
    makeRequest({
      resource: "namespaces",
      operation: "CREATE",
      namespace: name,
      name,
      kind: { kind: "Namespace" },
      object: { metadata: { name, ...(labels ? { labels } : {}) } },
    });
  const snap = validatingSnapshot([
    hook("labelled", {
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] },
      ],
      matchConditions: [
        { name: "c", expression: "object.metadata.?labels.orValue({}).size() > 0" },
      ],
    }),
    hook("by-name", {
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] },
      ],
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "fresh" } },
    }),
  ]);

  it("carries the label naming it, though the body has no labels", () => {
    const p = predict(create(), snap).prediction;
    expect(p.calls.map((c) => c.hook.name).sort()).toEqual(["by-name", "labelled"]);
  });

  it("is labelled with its own name even when the body says otherwise", () => {
    const p = predict(create({ "kubernetes.io/metadata.name": "other" }), snap).prediction;
    expect(p.calls.map((c) => c.hook.name).sort()).toEqual(["by-name", "labelled"]);
  });

  it("a generateName create is labelled only once named, before validating admission: a validating condition reading labels is undecided", () => {
    const r = makeRequest({
      resource: "namespaces",
      operation: "CREATE",
      kind: { kind: "Namespace" },
      object: { metadata: { generateName: "fresh-" } },
    });
    const p = predict(r, snap).prediction;
    expect(p.calls.map((c) => c.hook.name)).toEqual([]);
    expect(p.indeterminate.map((x) => [x.hook.name, x.reason])).toEqual([
      [
        "labelled",
        "reads the name (or the label naming it) the apiserver generates (generateName) before validating admission",
      ],
    ]);
    // The generated name is never "fresh".
    expect(p.skips.find((x) => x.hook.name === "by-name")?.reason.code).toBe("namespace-selector");
  });

  describe("selectors on the label naming it (store.go create: named, then Canonicalize, then validating admission)", () => {
    const nsRules = [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] },
    ];
    const req = (key: string, operator: string, ...values: string[]) => ({
      matchExpressions: [{ key, operator, ...(values.length > 0 ? { values } : {}) }],
    });
    const L = "kubernetes.io/metadata.name";
    const labelled = (name: string, extra: Record<string, unknown> = {}) =>
      hook(name, { rules: nsRules, ...extra });
    const snapshot = validatingSnapshot(
      [
        labelled("v-nsexists", { namespaceSelector: req(L, "Exists") }),
        labelled("v-objexists", { objectSelector: req(L, "Exists") }),
        labelled("v-nsabsent", { namespaceSelector: req(L, "DoesNotExist") }),
        // Values the generated name could be, and values it cannot be.
        labelled("v-in-maybe", { namespaceSelector: req(L, "In", "fresh-bcd2f") }),
        labelled("v-in-never", { objectSelector: req(L, "In", "fresh-x") }),
        labelled("v-notin-never", { namespaceSelector: req(L, "NotIn", "default") }),
        labelled("v-notin-maybe", { objectSelector: req(L, "NotIn", "fresh-bcd2f") }),
        // Undecided on the label, but skipped by another requirement whatever the name is.
        labelled("v-in-maybe-but-team", {
          namespaceSelector: {
            matchLabels: { [L]: "fresh-bcd2f", team: "a" },
          },
        }),
      ],
      {
        mutatingWebhookConfigurations: [
          {
            metadata: { name: "m" },
            webhooks: [
              labelled("m-nsexists", { namespaceSelector: req(L, "Exists") }),
              labelled("m-nsabsent", { namespaceSelector: req(L, "DoesNotExist") }),
            ],
          },
        ],
        validatingAdmissionPolicies: [
          {
            metadata: { name: "vap" },
            spec: {
              matchConstraints: { resourceRules: nsRules, namespaceSelector: req(L, "Exists") },
              validations: [{ expression: "true" }],
            },
          },
        ],
        validatingAdmissionPolicyBindings: [
          {
            metadata: { name: "maybe" },
            spec: {
              policyName: "vap",
              validationActions: ["Deny"],
              matchResources: { objectSelector: req(L, "In", "fresh-bcd2f") },
            },
          },
          {
            metadata: { name: "sure" },
            spec: { policyName: "vap", validationActions: ["Deny"] },
          },
        ],
      },
    );
    const generated = makeRequest({
      resource: "namespaces",
      operation: "CREATE",
      kind: { kind: "Namespace" },
      object: { apiVersion: "v1", kind: "Namespace", metadata: { generateName: "fresh-" } },
    });

    it("generateName: mutating hooks see no label, validating ones a label with the name to come", () => {
      const { prediction: p, explainer } = predict(generated, snapshot);
      expect(p.calls.map((c) => c.hook.name).sort()).toEqual(
        ["m-nsabsent", "sure", "v-nsexists", "v-objexists", "v-notin-never"].sort(),
      );
      expect(p.indeterminate.map((x) => [x.hook.name, x.dependsOn, x.condition])).toEqual([
        ["maybe", "objectSelector", `${L} in (fresh-bcd2f)`],
        ["v-in-maybe", "namespaceSelector", `${L} in (fresh-bcd2f)`],
        ["v-notin-maybe", "objectSelector", `${L} notin (fresh-bcd2f)`],
      ]);
      expect(p.indeterminate[1]?.message).toBe(
        `depends on namespaceSelector ${L} in (fresh-bcd2f): the apiserver labels the Namespace ${L} with the name it generates (generateName) after mutating and before validating admission`,
      );
      const skip = (n: string) => p.skips.find((s) => s.hook.name === n);
      expect(skip("m-nsexists")?.reason.code).toBe("namespace-selector");
      expect(skip("v-in-maybe-but-team")?.reason.code).toBe("namespace-selector");
      expect(explainer.skip(skip("v-nsabsent") as never).message).toBe(
        `namespaceSelector {!${L}} does not match namespace fresh-?????: label ${L} is "fresh-?????", but the selector requires it to be absent`,
      );
      expect(skip("v-in-never")?.reason.code).toBe("object-selector");
      expect(p.failure).toBeUndefined();
    });

    it("an explicit name: labelled before mutating admission already, every phase sees it", () => {
      const named = makeRequest({
        resource: "namespaces",
        operation: "CREATE",
        namespace: "fresh-bcd2f",
        name: "fresh-bcd2f",
        kind: { kind: "Namespace" },
        object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "fresh-bcd2f" } },
      });
      const p = predict(named, snapshot).prediction;
      expect(p.indeterminate).toEqual([]);
      expect(p.calls.map((c) => c.hook.name).sort()).toEqual(
        [
          "m-nsexists",
          "maybe",
          "sure",
          "v-in-maybe",
          "v-nsexists",
          "v-objexists",
          "v-notin-never",
        ].sort(),
      );
    });
  });
});

describe("mutating admission policies and DELETE (policy/mutating/plugin.go NewHandler)", () => {
  it("are not consulted for a DELETE, whatever their rules say", () => {
    const snap = validatingSnapshot([], {
      mutatingAdmissionPolicies: [
        {
          metadata: { name: "m" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: { resourceRules: any },
            reinvocationPolicy: "Never",
            mutations: [],
          },
        } as never,
      ],
      mutatingAdmissionPolicyBindings: [
        { metadata: { name: "mb" }, spec: { policyName: "m" } } as never,
      ],
    });
    const r = (operation: "CREATE" | "DELETE") =>
      makeRequest({
        resource: "configmaps",
        operation,
        namespace: "team",
        name: "cm",
        kind: { kind: "ConfigMap" },
        object: operation === "DELETE" ? null : { metadata: { name: "cm" } },
        oldObject: operation === "DELETE" ? { metadata: { name: "cm" } } : null,
      });
    expect(predict(r("CREATE"), snap).prediction.calls.map((c) => c.hook.name)).toEqual(["mb"]);
    const del = predict(r("DELETE"), snap).prediction;
    expect(del.calls).toEqual([]);
    expect(del.skips.map((s) => [s.hook.name, s.reason.code])).toEqual([["mb", "excluded"]]);
  });
});

describe("a mutating policy's ApplyConfiguration on a Scale (policy/mutating/patch/typeconverter.go)", () => {
  const snap = (failurePolicy: string) =>
    validatingSnapshot([], {
      mutatingAdmissionPolicies: [
        {
          metadata: { name: "m" },
          spec: {
            failurePolicy,
            matchConstraints: { resourceRules: any },
            reinvocationPolicy: "Never",
            mutations: [
              {
                patchType: "ApplyConfiguration",
                applyConfiguration: { expression: "Object{}" },
              },
            ],
          },
        } as never,
      ],
      mutatingAdmissionPolicyBindings: [
        { metadata: { name: "mb" }, spec: { policyName: "m" } } as never,
      ],
    });
  const scale = makeRequest({
    group: "apps",
    resource: "deployments",
    subresource: "scale",
    operation: "UPDATE",
    namespace: "team",
    name: "d",
    kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    object: { metadata: { name: "d" }, spec: { replicas: 2 } },
    oldObject: { metadata: { name: "d" }, spec: { replicas: 1 } },
  });

  it("fails: the Scale has no typed schema to apply it through (Fail rejects, 403)", () => {
    const p = predict(scale, snap("Fail")).prediction;
    expect(p.failure).toMatchObject({
      stage: "mutating-policy",
      status: 403,
      message:
        "policy 'm' with binding 'mb' denied request: error applying patch: failed to convert patch object to typed object: no corresponding type for autoscaling/v1, Kind=Scale",
    });
  });

  it("is evaluated and its error dropped under Ignore", () => {
    const p = predict(scale, snap("Ignore")).prediction;
    expect(p.failure).toBeUndefined();
    expect(p.calls.map((c) => c.hook.name)).toEqual(["mb"]);
  });
});

describe("validating webhooks are all matched before any is called (validating/dispatcher.go Dispatch)", () => {
  const rules = [
    { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
  ];
  // A label the object lacks: selecting it is an error ("no such key").
  const failing = [{ name: "boom", expression: "object.metadata.labels['absent'] == 'x'" }];
  const snapshot = (failurePolicy: "Fail" | "Ignore", sideEffects = "None"): AdmissionSnapshot =>
    validatingSnapshot([
      hook("before", { rules }),
      hook("before-dry", { rules, sideEffects }),
      hook("err", { rules, failurePolicy, matchConditions: failing }),
      hook("after", { rules }),
    ]);
  const req = (dryRun = false) =>
    makeRequest({
      resource: "configmaps",
      operation: "CREATE",
      namespace: "team",
      name: "cm",
      kind: { kind: "ConfigMap" },
      object: { metadata: { name: "cm", labels: { app: "x" } } },
      dryRun,
    });

  it("a matchCondition error under Fail: the request fails there and no validating webhook is called", () => {
    const { prediction: p, explainer } = predict(req(), snapshot("Fail"));
    expect(p.calls).toEqual([]);
    expect(p.failure).toMatchObject({
      stage: "validating-webhook",
      status: 403,
      hook: { name: "err" },
    });
    expect(p.failure?.message).toBe(
      `configmaps "cm" is forbidden: expression 'object.metadata.labels['absent'] == 'x'' resulted in error: no such key: absent`,
    );
    expect(p.skips.map((x) => `${x.hook.name}:${x.reason.code}`)).toEqual([
      "before:match-failed",
      "before-dry:match-failed",
      "after:not-reached",
    ]);
    expect(explainer.skip(p.skips[0]!).message).toBe(
      "not called: matching ValidatingWebhookConfiguration cfg / err failed, and the apiserver decides every validating webhook before calling any, so when one match fails it calls none",
    );
  });

  it("under Ignore the error skips that hook alone: the others are called", () => {
    const p = predict(req(), snapshot("Ignore")).prediction;
    expect(p.failure).toBeUndefined();
    expect(p.calls.map((c) => c.hook.name)).toEqual(["before", "before-dry", "after"]);
  });

  it("a dry-run refusal comes at the call: the other validating webhooks are still called", () => {
    const p = predict(
      req(true),
      validatingSnapshot([
        hook("before", { rules }),
        hook("before-dry", { rules, sideEffects: "Some" }),
        hook("after", { rules }),
      ]),
    ).prediction;
    expect(p.failure).toMatchObject({ status: 400, hook: { name: "before-dry" } });
    expect(p.calls.map((c) => c.hook.name)).toEqual(["before", "after"]);
  });

  it("a match failure after a dry-run refusal is the request's failure, and nothing is called", () => {
    const p = predict(req(true), snapshot("Fail", "Some")).prediction;
    expect(p.failure).toMatchObject({ status: 403, hook: { name: "err" } });
    expect(p.calls).toEqual([]);
  });

  it("a namespace that cannot be read (CONNECT in a missing namespace): none called", () => {
    const exec = [
      { operations: ["CONNECT"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec"] },
    ];
    const out = predict(
      makeRequest({
        resource: "pods",
        subresource: "exec",
        operation: "CONNECT",
        namespace: "ghost",
        name: "web",
        kind: { kind: "PodExecOptions" },
        object: { kind: "PodExecOptions", apiVersion: "v1" },
      }),
      {
        namespaces: {},
        validatingWebhookConfigurations: [
          {
            metadata: { name: "v" },
            webhooks: [
              hook("first", { rules: exec }),
              hook("sel", { rules: exec, namespaceSelector: { matchLabels: { a: "b" } } }),
              hook("after", { rules: exec }),
            ],
          },
        ],
      },
    ).prediction;
    expect(out.calls).toEqual([]);
    expect(out.failure).toMatchObject({ status: 404, hook: { name: "sel" } });
    expect(out.skips.map((x) => `${x.hook.name}:${x.reason.code}`)).toEqual([
      "first:match-failed",
      "after:not-reached",
    ]);
  });
});
