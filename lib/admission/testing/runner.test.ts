import { describe, expect, it } from "vitest";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import { parseTestFile, serializeTestFile } from "./format";
import { TestRunner, summarize } from "./runner";
import { applyJsonPatch, messagesAsMaps } from "./policy-eval";

const rules = [
  { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
];

const SNAPSHOT = {
  discovery: builtinDiscovery(),
  namespaces: {
    "team-a": { "kubernetes.io/metadata.name": "team-a", team: "a" },
    "kube-system": { "kubernetes.io/metadata.name": "kube-system" },
  },
  validatingWebhookConfigurations: [
    {
      metadata: { name: "gate" },
      webhooks: [
        {
          name: "gate.example.com",
          clientConfig: { url: "https://gate.example.com" },
          rules,
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          namespaceSelector: { matchLabels: { team: "a" } },
        },
      ],
    },
  ],
  validatingAdmissionPolicies: [
    {
      metadata: { name: "require-team" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: rules },
        variables: [{ name: "team", expression: "object.metadata.?labels.team.orValue('')" }],
        validations: [
          {
            expression: "variables.team != ''",
            messageExpression: "'pod ' + object.metadata.name + ' has no team label'",
          },
        ],
        auditAnnotations: [{ key: "team", valueExpression: "variables.team" }],
      },
    },
  ],
  validatingAdmissionPolicyBindings: [
    {
      metadata: { name: "require-team-everywhere" },
      spec: { policyName: "require-team", validationActions: ["Deny"] },
    },
  ],
  mutatingAdmissionPolicies: [
    {
      metadata: { name: "add-env" },
      spec: {
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        matchConstraints: { resourceRules: rules },
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression: 'Object{metadata: Object.metadata{labels: {"env": "dev"}}}',
            },
          },
        ],
      },
    },
  ],
  mutatingAdmissionPolicyBindings: [
    { metadata: { name: "add-env" }, spec: { policyName: "add-env" } },
  ],
} as unknown as AdmissionSnapshot;

const SUITE = `apiVersion: portcullis.dev/v1alpha1
kind: AdmissionTestSuite
cases:
  - name: a labelled pod in team-a
    request:
      operation: CREATE
      namespace: team-a
      object: { apiVersion: v1, kind: Pod, metadata: { name: p, labels: { team: a } }, spec: { containers: [{ name: c, image: i }] } }
    expect:
      calls:
        - MutatingAdmissionPolicy/add-env/add-env
        - ValidatingAdmissionPolicy/require-team/require-team-everywhere
        - ValidatingWebhookConfiguration/gate/gate.example.com
      order: [MutatingAdmissionPolicy/add-env, ValidatingWebhookConfiguration/gate]
      policies:
        - hook: ValidatingAdmissionPolicy/require-team
          result: allowed
          auditAnnotations: { team: a }
      mutatedObject: { apiVersion: v1, kind: Pod, metadata: { name: p, labels: { team: a, env: dev } }, spec: { containers: [{ name: c, image: i }] } }
      admitted: true
      dryRun: { allowed: true }
  - name: an unlabelled pod in kube-system is refused by the policy
    request:
      operation: CREATE
      namespace: kube-system
      object: { apiVersion: v1, kind: Pod, metadata: { name: q }, spec: { containers: [{ name: c, image: i }] } }
    expect:
      admitted: false
      notCalled: [ValidatingWebhookConfiguration/gate]
      skipped:
        - hook: ValidatingWebhookConfiguration/gate/gate.example.com
          reason: namespace-selector
      policies:
        - hook: ValidatingAdmissionPolicy/require-team/require-team-everywhere
          result: denied
          message: pod q has no team label
  - name: a wrong expectation fails with the reason
    request:
      operation: CREATE
      namespace: kube-system
      object: { apiVersion: v1, kind: Pod, metadata: { name: r, labels: { team: b } } }
    expect:
      called: [ValidatingWebhookConfiguration/gate/gate.example.com]
      order: [ValidatingAdmissionPolicy/require-team, MutatingAdmissionPolicy/add-env]
      skipped:
        - hook: ValidatingWebhookConfiguration/gate/gate.example.com
          reason: rules
  - name: only a webhook's answer would decide
    request:
      operation: CREATE
      namespace: team-a
      object: { apiVersion: v1, kind: Pod, metadata: { name: s, labels: { team: a } } }
    expect:
      admitted: true
`;

describe("TestRunner", () => {
  const parsed = parseTestFile(SUITE);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const runner = new TestRunner({ snapshot: SNAPSHOT, namespacesFrom: "files" });
  const results = parsed.cases.map((c) => runner.run(c, parsed.suites[c.suite]));

  it("passes cases whose calls, skips, policy verdicts and mutated object agree", () => {
    expect(results[0]?.checks.filter((c) => c.status !== "pass")).toEqual([
      {
        expectation: "admitted",
        status: "undecided",
        message: expect.stringContaining("gate.example.com") as string,
      },
      {
        expectation: "dryRun",
        status: "undecided",
        message: expect.stringContaining("--dry-run") as string,
      },
    ]);
    expect(results[0]?.status).toBe("pass");
    expect(results[1]?.checks.every((c) => c.status === "pass")).toBe(true);
    expect(results[1]?.admitted).toBe(false);
  });

  it("fails a case with each wrong expectation's reason", () => {
    expect(results[2]?.status).toBe("fail");
    expect(results[2]?.checks.map((c) => c.message)).toEqual([
      expect.stringMatching(/is not called: skipped \(namespace-selector\)/) as string,
      "called in the order MutatingAdmissionPolicy/add-env/add-env, ValidatingAdmissionPolicy/require-team/require-team-everywhere",
      expect.stringMatching(/^skipped for namespace-selector, expected rules/) as string,
    ]);
  });

  it("skips a case nothing offline decides, and a dry run's answer decides it", () => {
    expect(results[3]?.status).toBe("skip");
    const c = parsed.cases[3];
    if (!c) throw new Error("case");
    const answered = runner.run(c, parsed.suites[0], {
      kind: "answered",
      allowed: false,
      status: 403,
      message: 'admission webhook "gate.example.com" denied the request: no',
      warnings: [],
    });
    expect(answered.status).toBe("fail");
    expect(summarize(results)).toEqual({ passed: 2, failed: 1, skipped: 1, errors: 0 });
  });
});

describe("policy evaluation helpers", () => {
  it("reads typed object construction as maps, strings untouched", () => {
    expect(messagesAsMaps('Object{spec: Object.spec{x: "Object{a: 1}"}}')).toBe(
      '{"spec": {"x": "Object{a: 1}"}}',
    );
    expect(messagesAsMaps('[JSONPatch{op: "add", path: "/a", value: {"k": 1}}]')).toBe(
      '[{"op": "add", "path": "/a", "value": {"k": 1}}]',
    );
  });

  it("applies JSON Patch as RFC 6902", () => {
    expect(
      applyJsonPatch({ a: [1, 2], b: { c: 1 } }, [
        { op: "add", path: "/a/-", value: 3 },
        { op: "remove", path: "/b/c" },
        { op: "add", path: "/b/d~1e", value: "x" },
        { op: "replace", path: "/a/0", value: 0 },
      ]),
    ).toEqual({ a: [0, 2, 3], b: { "d/e": "x" } });
    expect(() => applyJsonPatch({}, [{ op: "replace", path: "/x", value: 1 }])).toThrow();
  });
});

describe("a case saved from a prediction", () => {
  it("passes against the configuration it was saved from, and fails against an edit", async () => {
    const { buildRequest, predictReport } = await import("@/lib/admission/report/predict-report");
    const { caseFromReport } = await import("./from-prediction");
    const object = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", labels: { team: "a" } },
    };
    const built = buildRequest(
      {
        operation: "CREATE",
        subresource: "",
        resource: undefined,
        namespace: "team-a",
        name: undefined,
        dryRun: false,
        namespaceLabels: undefined,
        user: "alice",
        groups: ["dev"],
      },
      {
        object,
        oldObject: undefined,
        discovery: builtinDiscovery(),
        namespaces: SNAPSHOT.namespaces ?? {},
        namespacesFrom: "files",
        identity: undefined,
      },
    );
    const report = predictReport(built.request, built.report, SNAPSHOT, []);
    const saved = caseFromReport("saved", report, { object, oldObject: null });
    expect(saved.expect.calls).toEqual([
      "MutatingAdmissionPolicy/add-env/add-env",
      "ValidatingAdmissionPolicy/require-team/require-team-everywhere",
      "ValidatingWebhookConfiguration/gate/gate.example.com",
    ]);
    const text = serializeTestFile([saved]);
    const parsed = parseTestFile(text);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const c = parsed.cases[0];
    if (!c) throw new Error("case");
    expect(new TestRunner({ snapshot: SNAPSHOT, namespacesFrom: "files" }).run(c).status).toBe(
      "pass",
    );
    // The edit narrows the gate's selector: the case now fails, naming the hook and why.
    const edited = structuredClone(SNAPSHOT) as unknown as {
      validatingWebhookConfigurations: { webhooks: { namespaceSelector: unknown }[] }[];
    };
    const gate = edited.validatingWebhookConfigurations[0]?.webhooks[0];
    if (gate) gate.namespaceSelector = { matchLabels: { team: "b" } };
    const after = new TestRunner({
      snapshot: edited as unknown as AdmissionSnapshot,
      namespacesFrom: "files",
    }).run(c);
    expect(after.status).toBe("fail");
    expect(after.checks.filter((x) => x.status === "fail")).toEqual([
      {
        expectation: "calls",
        status: "fail",
        message: expect.stringMatching(
          /^called MutatingAdmissionPolicy\/add-env\/add-env, ValidatingAdmissionPolicy\/require-team\/require-team-everywhere; expected /,
        ) as string,
      },
    ]);
  });
});

describe("what a policy reads of the namespace", () => {
  it("is undecided beyond its name and labels unless the case gives the namespace object", () => {
    const policy = {
      metadata: { name: "by-annotation" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: rules },
        validations: [
          {
            expression: "has(namespaceObject.metadata.annotations) && object.metadata.name != 'x'",
          },
        ],
      },
    };
    const snapshot = {
      ...SNAPSHOT,
      validatingAdmissionPolicies: [policy],
      validatingAdmissionPolicyBindings: [
        {
          metadata: { name: "b" },
          spec: { policyName: "by-annotation", validationActions: ["Deny"] },
        },
      ],
    } as unknown as AdmissionSnapshot;
    const runner = new TestRunner({ snapshot, namespacesFrom: "files" });
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } };
    const expectation = {
      policies: [{ hook: "ValidatingAdmissionPolicy/by-annotation", result: "allowed" as const }],
    };
    const partial = runner.run({
      name: "labels only",
      request: { operation: "CREATE", namespace: "team-a", object: pod },
      expect: expectation,
    });
    expect(partial.checks[0]).toMatchObject({
      status: "undecided",
      message: expect.stringContaining("namespaceObject") as string,
    });
    const whole = runner.run({
      name: "the namespace given",
      request: {
        operation: "CREATE",
        namespace: "team-a",
        object: pod,
        namespaceObject: {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: "team-a", annotations: { a: "b" } },
        },
      },
      expect: expectation,
    });
    expect(whole.status).toBe("pass");
  });
});

describe("the minor a run reproduces", () => {
  // cel-go v0.26.0 (1.35, 1.36) finds '' at an offset past the end there; v0.29.2 (1.37) at the end.
  it("evaluates the policies' CEL as the snapshot's minor's cel-go, as its matchConditions", () => {
    const policy = {
      metadata: { name: "index-of" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: rules },
        validations: [{ expression: "'abc'.indexOf('', 5) == 3" }],
      },
    };
    const base = {
      ...SNAPSHOT,
      validatingAdmissionPolicies: [policy],
      validatingAdmissionPolicyBindings: [
        { metadata: { name: "b" }, spec: { policyName: "index-of", validationActions: ["Deny"] } },
      ],
    } as unknown as AdmissionSnapshot;
    const result = (snapshot: AdmissionSnapshot) => {
      const r = new TestRunner({ snapshot, namespacesFrom: "files" }).run({
        name: "a pod",
        request: {
          operation: "CREATE",
          namespace: "team-a",
          object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } },
        },
        expect: {
          policies: [{ hook: "ValidatingAdmissionPolicy/index-of", result: "allowed" as const }],
        },
      });
      return r.status;
    };
    expect(result(base)).toBe("pass");
    expect(result({ ...base, kubernetes: { minor: "1.37", source: "flag" } })).toBe("pass");
    expect(result({ ...base, kubernetes: { minor: "1.36", source: "flag" } })).toBe("fail");
    expect(result({ ...base, kubernetes: { minor: "1.35", source: "cluster" } })).toBe("fail");
  });
});
