import { expectationsFromPrediction } from "@/lib/admission/testing/from-prediction";
import { describe, expect, it } from "vitest";
import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import { hook, validatingSnapshot } from "@/lib/admission/model/test-helpers";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { predict } from "@/lib/admission/prediction/predict";
import {
  admissionRequestOf,
  caseName,
  caseRequestOfDecision,
  testCaseOf,
  testRequestOf,
  type CaseRequest,
} from "./case";
import { storedIn, withEdit } from "./edit-snapshot";
import { parseTestFile, serializeTestFile } from "@/lib/admission/testing/format";
import { replay, type ReplayItem } from "./replay";
import { groupSentence } from "./replay-result";

const POD_RULE = [
  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
];

/** `cfg/pods.example.com` called in every namespace; `cfg/other.example.com` for app=web pods. */
const current: AdmissionSnapshot = validatingSnapshot(
  [
    hook("pods.example.com", { rules: POD_RULE }),
    hook("other.example.com", { rules: POD_RULE, objectSelector: { matchLabels: { app: "web" } } }),
  ],
  {
    namespaces: {
      "team-a": { "kubernetes.io/metadata.name": "team-a", env: "dev" },
      "team-b": { "kubernetes.io/metadata.name": "team-b", env: "prod" },
    },
  },
);

/** `cfg` with each of its webhooks rewritten by `f`, in the snapshot. */
function editCfg(f: (w: Record<string, unknown>) => Record<string, unknown>): AdmissionSnapshot {
  const cfg = storedIn(current, "validatingwebhookconfigurations", "cfg") as {
    webhooks: Array<Record<string, unknown>>;
  };
  return withEdit(current, "validatingwebhookconfigurations", "cfg", {
    ...cfg,
    webhooks: cfg.webhooks.map(f),
  });
}

/** The edit: pods.example.com narrowed to env=prod namespaces. */
const narrowed = (): AdmissionSnapshot =>
  editCfg((w) =>
    w.name === "pods.example.com"
      ? { ...w, namespaceSelector: { matchLabels: { env: "prod" } } }
      : w,
  );

/** pods.example.com with a matchCondition that errors, under Fail. */
const breakPods = (w: Record<string, unknown>): Record<string, unknown> =>
  w.name === "pods.example.com"
    ? {
        ...w,
        failurePolicy: "Fail",
        matchConditions: [{ name: "bad", expression: "object.metadata.nope == 'x'" }],
      }
    : w;

const facts = (over: Partial<AuditRequestFacts> = {}): AuditRequestFacts => ({
  user: "alice",
  groups: ["devs", "system:authenticated"],
  verb: "create",
  operation: "CREATE",
  requestURI: "/api/v1/namespaces/team-a/pods",
  group: "",
  version: "v1",
  resource: "pods",
  subresource: "",
  namespace: "team-a",
  name: "web-1",
  dryRun: false,
  latencies: {},
  ...over,
});

const pod = (ns: string, name: string, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns, labels, managedFields: [{ manager: "kubectl" }] },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

const rawEvent = (o: object) => JSON.stringify({ requestObject: o });

function feedItem(id: number, ns: string, labels: Record<string, string> = {}): ReplayItem {
  const c = caseRequestOfDecision(
    facts({ namespace: ns, name: `p${id}` }),
    rawEvent(pod(ns, `p${id}`, labels)),
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

describe("a case from a decision", () => {
  it("takes the event's object without managedFields, the user, groups and the labels known", () => {
    const c = caseRequestOfDecision(
      facts(),
      rawEvent(pod("team-a", "web-1", { app: "web" })),
      { "kubernetes.io/metadata.name": "team-a", env: "dev" },
      "saved",
    );
    expect(c).toMatchObject({
      operation: "CREATE",
      resource: "pods",
      namespace: "team-a",
      name: "web-1",
      objectKnown: true,
      user: "alice",
      groups: ["devs"],
      namespaceLabels: { env: "dev" },
      namespaceLabelsFrom: "saved",
    });
    expect(c?.object).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-1", namespace: "team-a", labels: { app: "web" } },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    expect(caseName(c as CaseRequest)).toBe("create pods team-a/web-1");
  });

  it("reads the object from the event the store already parsed as from its text", () => {
    const raw = rawEvent(pod("team-a", "web-1", { app: "web" }));
    expect(caseRequestOfDecision(facts(), raw, undefined, "current", JSON.parse(raw))).toEqual(
      caseRequestOfDecision(facts(), raw, undefined, "current"),
    );
  });

  it("at Metadata level knows the object by name only, and says so", () => {
    const c = caseRequestOfDecision(facts(), undefined, undefined, "current");
    expect(c?.objectKnown).toBe(false);
    expect(c?.object).toEqual({
      apiVersion: "v1",
      metadata: { name: "web-1", namespace: "team-a" },
    });
    expect(c?.namespaceLabelsFrom).toBe("unknown");
  });

  it("builds the AdmissionRequest the predictor takes, with the saved labels", () => {
    const c = caseRequestOfDecision(
      facts(),
      rawEvent(pod("team-a", "web-1")),
      { "kubernetes.io/metadata.name": "team-a", env: "prod" },
      "saved",
    ) as CaseRequest;
    const r = admissionRequestOf(testRequestOf(c), undefined);
    expect(r).toMatchObject({
      group: "",
      version: "v1",
      resource: "pods",
      kind: { group: "", version: "v1", kind: "Pod" },
      namespace: "team-a",
      name: "web-1",
      operation: "CREATE",
      userInfo: { username: "alice", groups: ["devs", "system:authenticated"] },
      namespaceObject: { labels: { "kubernetes.io/metadata.name": "team-a", env: "prod" } },
    });
    // Saved labels win over the snapshot's: team-a is env=dev in it, the case says prod.
    const p = predict(r, narrowed()).prediction;
    expect(p.calls.map((x) => x.hook.name)).toContain("pods.example.com");
  });

  it("expects what the prediction shows: calls in order, skips with the predictor's reason", () => {
    const c = caseRequestOfDecision(facts(), rawEvent(pod("team-a", "web-1")), undefined, "saved");
    const e = predict(admissionRequestOf(testRequestOf(c as CaseRequest), undefined), current);
    const x = expectationsFromPrediction(e.prediction, (s) => e.explainer.skip(s).message);
    expect(x).toEqual({
      calls: ["ValidatingWebhookConfiguration/cfg/pods.example.com"],
      skipped: [
        {
          hook: "ValidatingWebhookConfiguration/cfg/other.example.com",
          reason: "object-selector",
          message: expect.stringContaining("objectSelector {app=web}"),
        },
      ],
    });
    const t = testCaseOf(c as CaseRequest, x, { from: "decision", ref: "abc" });
    expect(t).toMatchObject({
      name: "create pods team-a/web-1",
      description: expect.stringContaining("namespace's labels were unknown"),
      source: { from: "decision", ref: "abc" },
      request: {
        operation: "CREATE",
        resource: "/v1/pods",
        name: "web-1",
        namespace: "team-a",
        userInfo: { username: "alice", groups: ["devs"] },
      },
    });
    // It is a valid case of the test file format, and reads back the same.
    const text = serializeTestFile([t]);
    const back = parseTestFile(text);
    expect(back.ok && back.cases[0]?.case).toEqual(t);
  });

  it("a DELETE's object is the old object; a refusal before any webhook is 'not admitted'", () => {
    const c = caseRequestOfDecision(
      facts({ operation: "DELETE", verb: "delete", namespace: "gone" }),
      undefined,
      undefined,
      "saved",
    ) as CaseRequest;
    const t = testRequestOf(c);
    expect(t.oldObject).toEqual({
      apiVersion: "v1",
      metadata: { name: "web-1", namespace: "gone" },
    });
    expect(t.object).toBeUndefined();
    const e = predict(admissionRequestOf(t, undefined), {
      ...current,
      terminatingNamespaces: ["gone"],
    });
    expect(expectationsFromPrediction(e.prediction, () => "").admitted ?? true).toBe(true);
    const created = predict(
      admissionRequestOf(
        testRequestOf({ ...c, operation: "CREATE", object: pod("gone", "x") }),
        undefined,
      ),
      { ...current, terminatingNamespaces: ["gone"] },
    );
    expect(expectationsFromPrediction(created.prediction, () => "").admitted).toBe(false);
  });
});

describe("replay before apply", () => {
  it("reports the requests a narrowed selector stops checking, grouped, with the reason", () => {
    const items = [
      ...Array.from({ length: 5 }, (_, i) => feedItem(i, "team-a")),
      ...Array.from({ length: 3 }, (_, i) => feedItem(10 + i, "team-b")),
    ];
    const r = replay(current, narrowed(), items);
    expect(r.replayed).toEqual({ cases: 0, feed: 8 });
    expect(r.changedCount).toBe(5);
    expect(r.changed.map((c) => c.namespace)).toEqual(Array(5).fill("team-a"));
    expect(r.changed[0]?.changes).toEqual([
      {
        kind: "newly-skipped",
        hook: {
          key: "ValidatingWebhookConfiguration:cfg/pods.example.com/0",
          label: "ValidatingWebhookConfiguration cfg / pods.example.com",
        },
        reason: expect.stringContaining(
          "namespaceSelector {env=prod} does not match namespace team-a",
        ),
      },
    ]);
    expect(r.groups).toEqual([
      expect.objectContaining({
        kind: "newly-skipped",
        operation: "CREATE",
        resource: "pods",
        namespace: "team-a",
        count: 5,
        first: 1000,
        last: 1004,
      }),
    ]);
    expect(groupSentence(r.groups[0] as (typeof r.groups)[number])).toBe(
      "This edit stops calling cfg / pods.example.com for 5 pod creations in team-a.",
    );
    expect(r.currentLabels).toBe(8);
    expect(r.withoutObject).toBe(0);
  });

  it("reports nothing when the edit changes no outcome", () => {
    const items = [feedItem(1, "team-b"), feedItem(2, "team-a", { app: "web" })];
    expect(replay(current, current, items).changedCount).toBe(0);
  });

  it("reports a hook the edit newly calls, with why it was skipped before", () => {
    const widened = editCfg((w) =>
      w.name === "other.example.com" ? { ...w, objectSelector: {} } : w,
    );
    const r = replay(current, widened, [
      feedItem(1, "team-b"),
      feedItem(2, "team-a", { app: "web" }),
    ]);
    expect(r.changedCount).toBe(1);
    expect(r.changed[0]?.changes[0]).toMatchObject({
      kind: "newly-called",
      hook: { label: "ValidatingWebhookConfiguration cfg / other.example.com" },
      reason: expect.stringMatching(
        /^rule 0 and its selectors match the request; before the edit: objectSelector \{app=web\}/,
      ),
    });
    expect(groupSentence(r.groups[0] as (typeof r.groups)[number])).toBe(
      "This edit starts calling cfg / other.example.com for 1 pod creation in team-b.",
    );
  });

  it("reports a request newly refused: a matchCondition that errors under Fail", () => {
    const broken = editCfg(breakPods);
    const r = replay(current, broken, [feedItem(1, "team-a")]);
    expect(r.changed[0]?.changes.map((c) => c.kind)).toContain("newly-denied");
  });

  it("counts every change but returns only the first `limit` requests", () => {
    const items = Array.from({ length: 30 }, (_, i) => feedItem(i, "team-a"));
    const r = replay(current, narrowed(), items, { limit: 10 });
    expect(r.changedCount).toBe(30);
    expect(r.changed).toHaveLength(10);
    expect(r.groups[0]?.count).toBe(30);
  });

  it("lists reasons for the first `limit` changed requests only; the others are counted", () => {
    const items = Array.from({ length: 3 }, (_, i) => feedItem(i, "team-a"));
    const r = replay(current, narrowed(), items, { limit: 1 });
    expect(r.changed).toHaveLength(1);
    expect(r.changed[0]?.changes[0]?.reason).toContain("namespaceSelector");
    expect(r.groups[0]?.count).toBe(3);
  });

  it("the screen and the derived prediction find exactly the changes a full replay finds", () => {
    const stored = storedIn(current, "validatingwebhookconfigurations", "cfg");
    const rewrite = editCfg;
    const edits = [
      narrowed(),
      withEdit(current, "validatingwebhookconfigurations", "cfg", {
        ...stored,
        webhooks: [
          hook("pods.example.com", {
            rules: POD_RULE,
            objectSelector: { matchLabels: { app: "api" } },
          }),
          hook("other.example.com", { rules: POD_RULE }),
        ],
      }),
      // Newly called: other.example.com for every pod.
      rewrite((w) => (w.name === "other.example.com" ? { ...w, objectSelector: {} } : w)),
      // Both hooks change at once, one newly skipped and one newly called.
      rewrite((w) =>
        w.name === "other.example.com"
          ? { ...w, objectSelector: { matchLabels: { app: "api" } } }
          : { ...w, namespaceSelector: { matchLabels: { env: "dev" } } },
      ),
      // Newly undecided: a matchCondition asking the authorizer, which offline cannot answer.
      rewrite((w) =>
        w.name === "pods.example.com"
          ? {
              ...w,
              matchConditions: [
                {
                  name: "may-get",
                  expression: "authorizer.group('').resource('pods').check('get').allowed()",
                },
              ],
            }
          : w,
      ),
      // Newly refused: the derivation steps aside and the edit is predicted in full.
      rewrite(breakPods),
    ];
    const items = [
      ...Array.from({ length: 6 }, (_, i) => feedItem(i, i % 2 ? "team-a" : "team-b")),
      ...Array.from({ length: 6 }, (_, i) =>
        feedItem(10 + i, i % 2 ? "team-a" : "team-b", { app: i % 3 ? "web" : "api" }),
      ),
      feedItem(20, "team-z", { app: "web" }),
      feedItem(21, "team-z"),
    ];
    for (const edited of edits) {
      const focus = {
        resource: "validatingwebhookconfigurations" as const,
        name: "cfg",
        stored,
        edited: storedIn(edited, "validatingwebhookconfigurations", "cfg") as Record<
          string,
          unknown
        >,
      };
      // limit 0: no request is explained again, every change comes from the fast outcomes.
      for (const limit of [0, 500]) {
        const full = replay(current, edited, items, { limit });
        const screened = replay(current, edited, items, { focus, limit });
        expect(full.changedCount, `edit ${edits.indexOf(edited)}`).toBeGreaterThan(0);
        expect({ ...screened, millis: 0 }).toEqual({ ...full, millis: 0 });
      }
    }
  });

  it("replaces the edited object in place, or adds a new one", () => {
    const added = withEdit(current, "validatingwebhookconfigurations", "new", {
      metadata: { name: "new" },
      webhooks: [hook("new.example.com")],
    });
    expect(added.validatingWebhookConfigurations?.map((c) => c.metadata?.name)).toEqual([
      "cfg",
      "new",
    ]);
    expect(current.validatingWebhookConfigurations).toHaveLength(1);
  });
});
