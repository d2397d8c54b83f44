import { describe, expect, it } from "vitest";
import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import type { JsonObject } from "@/lib/admission/model/request";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { hook } from "@/lib/admission/model/test-helpers";
import {
  admissionRequestOf,
  caseName,
  caseRequestOfDecision,
  testRequestOf,
  type CaseRequest,
} from "./case";
import { storedIn, withEdit, type EditableResource } from "./edit-snapshot";
import { replay, type ReplayItem } from "./replay";
import { groupSentence } from "./replay-result";

const CM_RULES = [
  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
];

/** `owned`: configmaps must carry an owner label (team-a and team-b only, by its binding). */
const current: AdmissionSnapshot = {
  namespaces: {
    "team-a": { "kubernetes.io/metadata.name": "team-a", env: "dev" },
    "team-b": { "kubernetes.io/metadata.name": "team-b", env: "prod" },
  },
  validatingAdmissionPolicies: [
    {
      metadata: { name: "owned" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: CM_RULES },
        validations: [
          {
            expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
            message: "a configmap needs an owner label",
          },
        ],
      },
    },
  ],
  validatingAdmissionPolicyBindings: [
    {
      metadata: { name: "owned-binding" },
      spec: { policyName: "owned", validationActions: ["Deny"] },
    },
  ],
};

const facts = (ns: string, name: string): AuditRequestFacts => ({
  user: "alice",
  groups: ["devs", "system:authenticated"],
  verb: "create",
  operation: "CREATE",
  requestURI: `/api/v1/namespaces/${ns}/configmaps`,
  group: "",
  version: "v1",
  resource: "configmaps",
  subresource: "",
  namespace: ns,
  name,
  dryRun: false,
  latencies: {},
});

/** A configmap creation from the feed, its object in the event (or not, at Metadata level). */
function feedItem(
  id: number,
  ns: string,
  labels: Record<string, string>,
  data: Record<string, string> = {},
  objectKnown = true,
): ReplayItem {
  const name = `cm-${id}`;
  const object = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: ns, labels },
    data,
  };
  const c = caseRequestOfDecision(
    facts(ns, name),
    objectKnown ? JSON.stringify({ requestObject: object }) : undefined,
    undefined,
    "current",
  ) as CaseRequest;
  return {
    id: `decision:${id}`,
    source: "feed",
    title: caseName(c),
    time: 1000 + id,
    request: admissionRequestOf(testRequestOf(c), undefined),
    labelsFrom: "current",
    objectKnown: c.objectKnown,
  };
}

type Spec = Record<string, unknown>;

/** The snapshot with one object's spec rewritten, and the focus a replay screens with. */
function edit(
  base: AdmissionSnapshot,
  resource: EditableResource,
  name: string,
  f: (spec: Spec) => Spec,
) {
  const stored = storedIn(base, resource, name) as { spec: Spec };
  const edited = { ...stored, spec: f(stored.spec) };
  return {
    edited: withEdit(base, resource, name, edited),
    focus: { resource, name, stored, edited },
  };
}

/** The policy's validation rewritten: configmaps must also have a `team` label. */
const stricter = (base = current) =>
  edit(base, "validatingadmissionpolicies", "owned", (s) => ({
    ...s,
    validations: [
      {
        expression:
          "has(object.metadata.labels) && 'owner' in object.metadata.labels && 'team' in object.metadata.labels",
        messageExpression: "'configmap ' + object.metadata.name + ' needs owner and team labels'",
      },
    ],
  }));

const items = [
  feedItem(1, "team-a", { owner: "x" }),
  feedItem(2, "team-a", { owner: "x", team: "a" }),
  feedItem(3, "team-b", {}),
  feedItem(4, "team-b", { owner: "y" }),
];

/** The same replay with and without the screen (the focus) finds the same. */
function both(e: ReturnType<typeof edit>, base = current, params?: Parameters<typeof replay>[3]) {
  const full = replay(base, e.edited, items, params);
  const screened = replay(base, e.edited, items, { ...params, focus: e.focus });
  expect({ ...screened, millis: 0 }).toEqual({ ...full, millis: 0 });
  return screened;
}

describe("replay evaluates the validating admission policies", () => {
  it("an edit of a validation expression only is replayed, not screened out: newly denied, with the CEL message", () => {
    const r = both(stricter());
    expect(r.changedCount).toBe(2);
    expect(r.changed.map((c) => [c.name, c.changes])).toEqual([
      [
        "cm-1",
        [
          {
            kind: "newly-denied",
            hook: {
              key: expect.stringContaining("owned-binding"),
              label: "ValidatingAdmissionPolicy owned / owned-binding",
            },
            reason:
              "422: ValidatingAdmissionPolicy 'owned' with binding 'owned-binding' denied request: configmap cm-1 needs owner and team labels",
          },
        ],
      ],
      [
        "cm-4",
        [
          expect.objectContaining({
            kind: "newly-denied",
            reason: expect.stringContaining("configmap cm-4 needs owner and team labels"),
          }),
        ],
      ],
    ]);
    // cm-3 was denied before and is still (by the same binding): no change.
    expect(r.groups.map(groupSentence)).toEqual([
      "This edit makes admission refuse 1 configmap creation in team-a (at owned / owned-binding).",
      "This edit makes admission refuse 1 configmap creation in team-b (at owned / owned-binding).",
    ]);
  });

  it("a relaxed validation reports the requests newly allowed", () => {
    const e = edit(current, "validatingadmissionpolicies", "owned", (s) => ({
      ...s,
      validations: [{ expression: "true" }],
    }));
    const r = both(e);
    expect(r.changed.map((c) => [c.name, c.changes.map((x) => x.kind)])).toEqual([
      ["cm-3", ["no-longer-denied"]],
    ]);
    expect(r.changed[0]?.changes[0]?.reason).toBe(
      "before the edit: 422: ValidatingAdmissionPolicy 'owned' with binding 'owned-binding' denied request: a configmap needs an owner label",
    );
  });

  it("a binding's validationActions Deny → Warn: no longer denied, newly warned with the warning", () => {
    const e = edit(current, "validatingadmissionpolicybindings", "owned-binding", (s) => ({
      ...s,
      validationActions: ["Warn"],
    }));
    const r = both(e);
    expect(r.changed.map((c) => [c.name, c.changes.map((x) => x.kind)])).toEqual([
      ["cm-3", ["no-longer-denied", "newly-warned"]],
    ]);
    expect(r.changed[0]?.changes[1]?.reason).toBe(
      "Validation failed for ValidatingAdmissionPolicy 'owned' with binding 'owned-binding': a configmap needs an owner label",
    );
  });

  it("the binding's matchResources and the policy's matchConditions decide which requests are judged", () => {
    // Bound to env=prod namespaces only, the stricter rule denies only team-b's cm-4.
    const scoped = withEdit(current, "validatingadmissionpolicybindings", "owned-binding", {
      metadata: { name: "owned-binding" },
      spec: {
        policyName: "owned",
        validationActions: ["Deny"],
        matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } },
      },
    });
    expect(both(stricter(scoped), scoped).changed.map((c) => c.name)).toEqual(["cm-4"]);
    // A matchCondition leaving out configmaps named cm-4: the binding is no longer called for it,
    // so it is not denied either.
    const conditioned = edit(
      stricter(scoped).edited,
      "validatingadmissionpolicies",
      "owned",
      (s) => ({
        ...s,
        matchConditions: [{ name: "not-4", expression: "object.metadata.name != 'cm-4'" }],
      }),
    );
    expect(
      replay(scoped, conditioned.edited, items).changed.map((c) => [
        c.name,
        c.changes.map((x) => x.kind),
      ]),
    ).toEqual([["cm-4", ["newly-skipped"]]]);
  });

  it("evaluates with the binding's param object, when given in full; otherwise says nothing", () => {
    const withParams: AdmissionSnapshot = {
      ...current,
      validatingAdmissionPolicies: [
        {
          metadata: { name: "owned" },
          spec: {
            paramKind: { apiVersion: "v1", kind: "ConfigMap" },
            matchConstraints: { resourceRules: CM_RULES },
            validations: [{ expression: "size(object.data) <= int(params.data.max)" }],
          },
        },
      ],
      validatingAdmissionPolicyBindings: [
        {
          metadata: { name: "owned-binding" },
          spec: {
            policyName: "owned",
            validationActions: ["Deny"],
            paramRef: { name: "limits", namespace: "kube-system", parameterNotFoundAction: "Deny" },
          },
        },
      ],
      params: [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          namespaced: true,
          objects: [{ namespace: "kube-system", name: "limits" }],
        },
      ],
    };
    const e = edit(withParams, "validatingadmissionpolicies", "owned", (s) => ({
      ...s,
      validations: [
        {
          expression: "size(object.data) < int(params.data.max)",
          messageExpression: "'at most ' + params.data.max + ' keys'",
        },
      ],
    }));
    const two = [
      feedItem(1, "team-a", {}, { a: "1" }),
      feedItem(2, "team-a", {}, { a: "1", b: "2" }),
    ];
    const limits: JsonObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "limits", namespace: "kube-system" },
      data: { max: "2" },
    };
    const params = new Map([["v1/ConfigMap", new Map([["kube-system/limits", limits]])]]);
    const r = replay(withParams, e.edited, two, { focus: e.focus, params });
    expect(r.changed.map((c) => [c.name, c.changes.map((x) => x.reason)])).toEqual([
      [
        "cm-2",
        [
          "422: ValidatingAdmissionPolicy 'owned' with binding 'owned-binding' denied request: at most 2 keys",
        ],
      ],
    ]);
    // Without the param object's content nothing can be judged: no change is claimed.
    expect(replay(withParams, e.edited, two, { focus: e.focus }).changedCount).toBe(0);
  });

  it("claims nothing where the object the policy sees is not known", () => {
    // A mutating webhook called first may change the object.
    const mutated: AdmissionSnapshot = {
      ...current,
      mutatingWebhookConfigurations: [
        { metadata: { name: "m" }, webhooks: [hook("m.example.com", { rules: CM_RULES })] },
      ],
    };
    expect(both(stricter(mutated), mutated).changedCount).toBe(0);
    // At Metadata level the event holds no object.
    const metadataOnly = [feedItem(9, "team-a", { owner: "x" }, {}, false)];
    const e = stricter();
    expect(replay(current, e.edited, metadataOnly, { focus: e.focus }).changedCount).toBe(0);
  });

  it("an expression this evaluator cannot run is newly undecided, never a guess", () => {
    const e = edit(current, "validatingadmissionpolicies", "owned", (s) => ({
      ...s,
      validations: [{ expression: "authorizer.group('').resource('pods').check('get').allowed()" }],
    }));
    const r = both(e);
    expect(r.changed.flatMap((c) => c.changes.map((x) => x.kind))).toEqual([
      "newly-undecided",
      "newly-undecided",
      "no-longer-denied",
      "newly-undecided",
      "newly-undecided",
    ]);
  });
});

describe("the snapshot's minor", () => {
  // cel-go v0.26.0 (1.35, 1.36) finds '' at an offset past the end there; v0.29.2 (1.37) at the end.
  const indexOf = (base: AdmissionSnapshot) =>
    edit(base, "validatingadmissionpolicies", "owned", (s) => ({
      ...s,
      validations: [
        {
          expression:
            "'abc'.indexOf('', 5) == 3 && has(object.metadata.labels) && 'owner' in object.metadata.labels",
          message: "a configmap needs an owner label",
        },
      ],
    }));
  it("evaluates the policies' CEL as its cel-go", () => {
    const changed = (base: AdmissionSnapshot) => {
      const e = indexOf(base);
      return replay(base, e.edited, items, { focus: e.focus }).changedCount;
    };
    expect(changed(current)).toBe(0);
    expect(changed({ ...current, kubernetes: { minor: "1.37", source: "cluster" } })).toBe(0);
    // 1.36's v0.26 makes the edited validation false: every configmap is denied, three were not.
    expect(changed({ ...current, kubernetes: { minor: "1.36", source: "cluster" } })).toBe(3);
  });
});
