/**
 * Replay before apply against the real apiserver: the replay of an edit of a
 * ValidatingAdmissionPolicy (its validations, a param-reading validation, a binding's
 * validationActions) says which requests the edit newly denies, newly allows and newly warns,
 * evaluating the policies offline; the edit is then applied to the control plane and every
 * request sent as a dry run before and after it. A request the replay says is newly denied must
 * be allowed before and denied after, with the replay's status and message; one it says is no
 * longer denied must be denied before and allowed after (with the replay's warning when it says
 * newly warned); every other request must get the same verdict before and after.
 */
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { readFileSync } from "node:fs";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest, type HttpsJsonResponse } from "../../cluster/https-json";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { readFullParams } from "@/server/admission-tests/replay";
import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { warningTexts } from "../../test/oracle/server-verdict";
import {
  admissionRequestOf,
  caseName,
  caseRequestOfDecision,
  testRequestOf,
  type CaseRequest,
} from "./case";
import { storedIn, withEdit, type EditableResource } from "./edit-snapshot";
import { replay, type ReplayItem, type ReplayResult } from "./replay";

const run = `rp${Date.now().toString(36)}`;
const NS_A = `${run}-a`;
const NS_B = `${run}-b`;
const OWNED = `${run}-owned`;
const SIZE = `${run}-size`;
const GROUP = "/apis/admissionregistration.k8s.io/v1";
const CM_RULES = [
  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
];
/** Only this run's objects are judged (another test's configmaps, and the params, are not). */
const MATCH = {
  resourceRules: CM_RULES,
  objectSelector: { matchLabels: { "replay-oracle": run } },
};

let stack: StackInfo;
let ca: Buffer;
let client: KubeClient;

function kube(method: string, p: string, body?: unknown): Promise<HttpsJsonResponse> {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

async function kubeOk(method: string, p: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await kube(method, p, body);
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** The configmaps replayed: labels and data varied so each edit changes some and not others. */
const SHAPES: Array<{ labels: Record<string, string>; data: Record<string, string> }> = [
  { labels: { owner: "o", team: "t" }, data: { a: "1" } },
  { labels: { owner: "o" }, data: { a: "1" } },
  { labels: {}, data: {} },
  { labels: { owner: "o", team: "t" }, data: { a: "1", b: "2", c: "3" } },
  { labels: { owner: "o" }, data: { a: "1", b: "2" } },
  { labels: { team: "t" }, data: { a: "1" } },
];

interface Sent {
  item: ReplayItem;
  object: Record<string, unknown>;
}

const sent: Sent[] = [NS_A, NS_B].flatMap((ns, n) =>
  SHAPES.map((s, i) => {
    const name = `cm-${n}-${i}`;
    const object = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: ns, labels: { ...s.labels, "replay-oracle": run } },
      data: s.data,
    };
    const facts: AuditRequestFacts = {
      user: "admin",
      groups: ["system:masters", "system:authenticated"],
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
    };
    // As the feed holds it: the audit event's request object, the namespace's current labels.
    const c = caseRequestOfDecision(
      facts,
      JSON.stringify({ requestObject: object }),
      undefined,
      "current",
    ) as CaseRequest;
    const item: ReplayItem = {
      id: `decision:${n * 100 + i}`,
      source: "feed",
      title: caseName(c),
      time: n * 100 + i,
      request: admissionRequestOf(testRequestOf(c), undefined),
      labelsFrom: "current",
      objectKnown: true,
    };
    return { item, object };
  }),
);

interface Verdict {
  status: number;
  message: string;
  warnings: string[];
}

async function dryRun(s: Sent): Promise<Verdict> {
  const ns = (s.object.metadata as { namespace: string }).namespace;
  const res = await kube("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, s.object);
  const body = JSON.parse(res.body) as { message?: string };
  return {
    status: res.status,
    message: res.status >= 300 ? (body.message ?? "") : "",
    warnings: warningTexts(res),
  };
}

/** Dry-runs `probe` until the apiserver's answer satisfies `ok` (its policy caches caught up). */
async function until(probe: Sent, ok: (v: Verdict) => boolean, what: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const v = await dryRun(probe);
      if (!ok(v)) throw new Error(`${what}: the apiserver answers ${JSON.stringify(v)}`);
    },
    { timeout: 60_000, interval: 200 },
  );
}

const byName = (i: number) => sent[i] as Sent;

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  for (const [ns, env] of [
    [NS_A, "dev"],
    [NS_B, "prod"],
  ])
    await kubeOk("POST", "/api/v1/namespaces", { metadata: { name: ns, labels: { env } } });
  await kubeOk("POST", `/api/v1/namespaces/${NS_A}/configmaps`, {
    metadata: { name: "limits" },
    data: { max: "2" },
  });
  await kubeOk("POST", `${GROUP}/validatingadmissionpolicies`, {
    metadata: { name: OWNED },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: MATCH,
      validations: [
        {
          expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
          message: "a configmap needs an owner label",
        },
      ],
    },
  });
  await kubeOk("POST", `${GROUP}/validatingadmissionpolicybindings`, {
    metadata: { name: `${OWNED}-binding` },
    spec: { policyName: OWNED, validationActions: ["Deny"] },
  });
  await kubeOk("POST", `${GROUP}/validatingadmissionpolicies`, {
    metadata: { name: SIZE },
    spec: {
      failurePolicy: "Fail",
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      matchConstraints: MATCH,
      validations: [
        { expression: "!has(object.data) || size(object.data) <= int(params.data.max) + 1" },
      ],
    },
  });
  await kubeOk("POST", `${GROUP}/validatingadmissionpolicybindings`, {
    metadata: { name: `${SIZE}-binding` },
    spec: {
      policyName: SIZE,
      validationActions: ["Deny"],
      paramRef: { name: "limits", namespace: NS_A, parameterNotFoundAction: "Deny" },
    },
  });
  // Both applied: a configmap without an owner is denied, and one with 3 keys is not.
  await until(byName(2), (v) => v.message.includes("a configmap needs an owner label"), "owned");
  await until(byName(3), (v) => v.status === 201, "size");
});

afterAll(async () => {
  for (const p of [OWNED, SIZE]) {
    await kube("DELETE", `${GROUP}/validatingadmissionpolicybindings/${p}-binding`);
    await kube("DELETE", `${GROUP}/validatingadmissionpolicies/${p}`);
  }
  for (const ns of [NS_A, NS_B]) await kube("DELETE", `/api/v1/namespaces/${ns}`);
});

const PATHS: Record<string, string> = {
  validatingadmissionpolicies: `${GROUP}/validatingadmissionpolicies`,
  validatingadmissionpolicybindings: `${GROUP}/validatingadmissionpolicybindings`,
};

/**
 * Replays an edit of the live object (as the editor's replay does), applies it, and sets the
 * replay's findings against the apiserver's verdicts before and after. `applied` tells when the
 * apiserver uses the edited version.
 */
async function scenario(
  resource: EditableResource,
  name: string,
  change: (spec: Record<string, unknown>) => Record<string, unknown>,
  applied: { probe: Sent; ok: (v: Verdict) => boolean },
): Promise<ReplayResult> {
  const { snapshot } = await readAdmissionState(client);
  const current: AdmissionSnapshot = snapshot;
  const stored = storedIn(current, resource, name) as { spec: Record<string, unknown> };
  const edited = { ...stored, spec: change(stored.spec) };
  const params = await readFullParams(client, current, edited);
  const result = replay(
    current,
    withEdit(current, resource, name, edited),
    sent.map((s) => s.item),
    { focus: { resource, name, stored, edited }, params },
  );
  const before = await Promise.all(sent.map(dryRun));
  await kubeOk("PUT", `${PATHS[resource] ?? ""}/${name}`, edited);
  await until(applied.probe, applied.ok, `${name} edited`);
  const after = await Promise.all(sent.map(dryRun));

  const changed = new Map(result.changed.map((c) => [c.id, c]));
  expect(result.changedCount).toBe(result.changed.length);
  sent.forEach((s, i) => {
    const b = before[i] as Verdict;
    const a = after[i] as Verdict;
    const what = `${s.item.title}: before ${JSON.stringify(b)}, after ${JSON.stringify(a)}`;
    const c = changed.get(s.item.id);
    const denied = c?.changes.find((x) => x.kind === "newly-denied");
    const allowed = c?.changes.find((x) => x.kind === "no-longer-denied");
    const warned = c?.changes.find((x) => x.kind === "newly-warned");
    if (denied) {
      expect(b.status, what).toBe(201);
      const [status, ...message] = denied.reason.split(": ");
      expect(a.status, what).toBe(Number(status));
      expect(a.message, what).toBe(
        `configmaps "${(s.object.metadata as { name: string }).name}" is forbidden: ${message.join(": ")}`,
      );
    } else if (allowed) {
      expect(b.status, what).toBeGreaterThanOrEqual(400);
      expect(allowed.reason, what).toContain(b.message.replace(/^[^:]*forbidden: /, ""));
      expect(a.status, what).toBe(201);
    } else expect(a.status >= 300, what).toBe(b.status >= 300);
    if (warned) expect(a.warnings, what).toContain(warned.reason);
    else expect(a.warnings.length > b.warnings.length, what).toBe(false);
  });
  return result;
}

test("a policy's validation made stricter: the requests replay says are newly denied are, with its message", async () => {
  const r = await scenario(
    "validatingadmissionpolicies",
    OWNED,
    (spec) => ({
      ...spec,
      validations: [
        {
          expression:
            "has(object.metadata.labels) && 'owner' in object.metadata.labels && 'team' in object.metadata.labels",
          messageExpression: "'configmap ' + object.metadata.name + ' needs owner and team labels'",
        },
      ],
    }),
    { probe: byName(1), ok: (v) => v.message.includes("needs owner and team labels") },
  );
  // Shapes 1 and 4 (an owner, no team) in both namespaces.
  expect(r.changed.map((c) => c.name).sort()).toEqual(["cm-0-1", "cm-0-4", "cm-1-1", "cm-1-4"]);
});

test("a validation reading the binding's param object: newly denied as the apiserver denies", async () => {
  const r = await scenario(
    "validatingadmissionpolicies",
    SIZE,
    (spec) => ({
      ...spec,
      validations: [
        {
          expression: "!has(object.data) || size(object.data) <= int(params.data.max)",
          messageExpression: "'at most ' + params.data.max + ' keys'",
        },
      ],
    }),
    { probe: byName(3), ok: (v) => v.message.includes("at most 2 keys") },
  );
  expect(r.changed.map((c) => c.name).sort()).toEqual(["cm-0-3", "cm-1-3"]);
});

test("a binding's validationActions Deny → Warn: no longer denied, warned with the apiserver's warning", async () => {
  const r = await scenario(
    "validatingadmissionpolicybindings",
    `${OWNED}-binding`,
    (spec) => ({ ...spec, validationActions: ["Warn"] }),
    { probe: byName(2), ok: (v) => v.status === 201 },
  );
  // Every shape without both labels: 1, 2, 4 and 5, in both namespaces.
  expect(r.changed.map((c) => c.name).sort()).toEqual(
    ["cm-0-1", "cm-0-2", "cm-0-4", "cm-0-5", "cm-1-1", "cm-1-2", "cm-1-4", "cm-1-5"].sort(),
  );
  for (const c of r.changed)
    expect(c.changes.map((x) => x.kind)).toEqual(["no-longer-denied", "newly-warned"]);
});
