/**
 * The replay benchmark's measuring process (server modules load only under the react-server
 * condition, so bench/admission-replay.bench.ts runs this with it). Prints one JSON object.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAuditEvent, type ParsedAuditEvent } from "@/lib/admission/audit/audit";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { V1MutatingWebhookConfiguration } from "@/lib/k8s/types";
import { caseRequestOfDecision, testCaseOf } from "@/lib/replay/case";
import { storedIn, withEdit } from "@/lib/replay/edit-snapshot";
import { caseItems, feedFiltersOf, feedItems } from "@/lib/replay/replay-input";
import { replay, type ReplayResult } from "@/lib/replay/replay";
import { SqliteDriver } from "@/server/decisions/sqlite";
import { DecisionStore } from "@/server/decisions/store";
import { CaseStore } from "@/server/admission-tests/case-store";
import { recentRequests } from "@/server/admission-tests/replay";
import { makeSnapshot, prng } from "./fixtures";

const REQUESTS = 10_000;
const HOOKS = 1_000;
const NAMESPACES = 1_000;
const CONFIG = "bench-edit";
const HOOK = "pods.bench.example.com";

/** 1,000 varied webhooks, and the configuration being edited: a mutating hook on pod creations. */
function world(): { current: AdmissionSnapshot; edited: Record<string, unknown> } {
  const base = makeSnapshot(HOOKS, NAMESPACES);
  const cfg: V1MutatingWebhookConfiguration = {
    metadata: { name: CONFIG },
    webhooks: [
      {
        name: HOOK,
        clientConfig: { url: "https://127.0.0.1:9443/pods" },
        rules: [
          { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        objectSelector: { matchExpressions: [{ key: "app", operator: "Exists" }] },
      },
    ],
  };
  const current = {
    ...base,
    mutatingWebhookConfigurations: [...(base.mutatingWebhookConfigurations ?? []), cfg],
  };
  // The edit narrows the hook to production namespaces.
  const stored = storedIn(current, "mutatingwebhookconfigurations", CONFIG) as typeof cfg;
  const edited = {
    ...stored,
    webhooks: (stored.webhooks ?? []).map((w) => ({
      ...w,
      namespaceSelector: { matchLabels: { env: "prod" } },
    })),
  };
  return { current, edited };
}

/** Validating admission policies on pod creations, each bound with Deny. */
const POLICIES: Array<[string, string]> = [
  ["owned", "has(object.metadata.ownerReferences) && size(object.metadata.ownerReferences) > 0"],
  ["no-latest", "object.spec.containers.all(c, !c.image.endsWith(':latest'))"],
  [
    "requests",
    "object.spec.containers.all(c, has(c.resources) && has(c.resources.requests) && 'cpu' in c.resources.requests)",
  ],
  ["not-admin-sa", "object.spec.serviceAccountName != 'admin'"],
  ["app-label", "has(object.metadata.labels) && 'app' in object.metadata.labels"],
];

/**
 * The cluster's validating webhooks (the mutating ones left out: a mutating hook called first
 * leaves the object the policies see undecided, and nothing would be evaluated) with five
 * validating admission policies on pod creations; the edit narrows one's validation to ten apps,
 * with a messageExpression, so half the pods become denied.
 */
function policyWorld(base: AdmissionSnapshot) {
  const current: AdmissionSnapshot = {
    ...base,
    mutatingWebhookConfigurations: [],
    validatingAdmissionPolicies: POLICIES.map(([name, expression]) => ({
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
          ],
        },
        validations: [{ expression, message: `${name} fails` }],
      },
    })),
    validatingAdmissionPolicyBindings: POLICIES.map(([name]) => ({
      metadata: { name: `${name}-binding` },
      spec: { policyName: name, validationActions: ["Deny"] },
    })),
  };
  const stored = storedIn(current, "validatingadmissionpolicies", "app-label") as {
    spec: Record<string, unknown>;
  };
  const edited = {
    ...stored,
    spec: {
      ...stored.spec,
      validations: [
        {
          expression:
            "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels.app in ['app-0', 'app-1', 'app-2', 'app-3', 'app-4', 'app-5', 'app-6', 'app-7', 'app-8', 'app-9']",
          messageExpression: "'app ' + object.metadata.labels.app + ' is not one of the ten'",
        },
      ],
    },
  };
  return {
    current,
    edited: withEdit(current, "validatingadmissionpolicies", "app-label", edited),
    focus: {
      resource: "validatingadmissionpolicies" as const,
      name: "app-label",
      stored,
      edited,
    },
  };
}

/** 10,000 pod creations as the apiserver audits them at Request level, each calling the hook. */
function events(): ParsedAuditEvent[] {
  const rnd = prng(5);
  const t0 = Date.parse("2026-11-28T00:00:00Z");
  return Array.from({ length: REQUESTS }, (_, i) => {
    const ns = `ns-${Math.floor(rnd() * NAMESPACES)}`;
    const name = `web-${i}`;
    const p = parseAuditEvent({
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "Request",
      auditID: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      stage: "ResponseComplete",
      verb: "create",
      requestURI: `/api/v1/namespaces/${ns}/pods`,
      user: {
        username: "system:serviceaccount:kube-system:replicaset-controller",
        groups: ["system:serviceaccounts", "system:authenticated"],
      },
      objectRef: { resource: "pods", namespace: ns, name, apiVersion: "v1" },
      responseStatus: { code: 201 },
      requestObject: {
        kind: "Pod",
        apiVersion: "v1",
        metadata: {
          name,
          namespace: ns,
          labels: { app: `app-${i % 20}`, "pod-template-hash": "5d9c7b8f6" },
          ownerReferences: [
            { apiVersion: "apps/v1", kind: "ReplicaSet", name: `rs-${i % 50}`, uid: "u" },
          ],
        },
        spec: {
          containers: [
            {
              name: "web",
              image: "registry.local/web:1.4.2",
              ports: [{ containerPort: 8080, protocol: "TCP" }],
              resources: { requests: { cpu: "100m", memory: "128Mi" } },
            },
          ],
          serviceAccountName: "default",
        },
      },
      requestReceivedTimestamp: new Date(t0 + i * 1000).toISOString(),
      stageTimestamp: new Date(t0 + i * 1000 + 5).toISOString(),
      annotations: {
        "mutation.webhook.admission.k8s.io/round_0_index_0": JSON.stringify({
          configuration: CONFIG,
          webhook: HOOK,
          mutated: false,
        }),
      },
    });
    if (!p) throw new Error("the bench event did not parse");
    return p;
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Median ms of 3 runs after one warm-up, wall clock and CPU time of this process (what a shared,
 * busy machine distorts less), and the last result.
 */
async function timed(
  fn: () => Promise<ReplayResult>,
): Promise<{ ms: number; cpuMs: number; r: ReplayResult }> {
  let r = await fn();
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let k = 0; k < 3; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    r = await fn();
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { ms: Math.round(median(ms)), cpuMs: Math.round(median(cpu)), r };
}

const folder = mkdtempSync(path.join(os.tmpdir(), "portcullis-replay-bench-"));
try {
  const { current, edited } = world();
  const focus = {
    resource: "mutatingwebhookconfigurations" as const,
    name: CONFIG,
    stored: storedIn(current, "mutatingwebhookconfigurations", CONFIG),
    edited,
  };
  const editedSnapshot = withEdit(current, "mutatingwebhookconfigurations", CONFIG, edited);
  const driver = new SqliteDriver(path.join(folder, "decisions.sqlite"), "normal");
  const store = new DecisionStore(driver, { maxAgeMs: 365 * 86_400_000, maxRows: 10_000_000 });
  await store.migrate();
  const evs = events();
  for (let i = 0; i < evs.length; i += 400) await store.ingest(evs.slice(i, i + 400));
  const cases = new CaseStore(driver);
  await cases.migrate();
  const owner = { resource: "mutatingwebhookconfigurations", name: CONFIG };
  await driver.exec("BEGIN");
  for (const e of evs) {
    const c = caseRequestOfDecision(
      e.request,
      e.raw,
      current.namespaces?.[e.request.namespace],
      "saved",
    );
    if (!c) throw new Error("no case request");
    await cases.save(
      "bench",
      owner,
      testCaseOf(
        c,
        { calls: [`MutatingWebhookConfiguration/${CONFIG}/${HOOK}`] },
        { from: "decision", ref: e.auditID },
      ),
    );
  }
  await driver.exec("COMMIT");

  // Saved cases: read from the store, built into requests, replayed against both versions.
  const fromCases = await timed(async () => {
    const kept = await cases.list("bench", [owner]);
    return replay(current, editedSnapshot, caseItems(kept, current.discovery).items, { focus });
  });
  // The feed: the hook's last 10,000 decisions with their events, the same way.
  const filters = feedFiltersOf(
    "mutatingwebhookconfigurations",
    CONFIG,
    edited,
    storedIn(current, "mutatingwebhookconfigurations", CONFIG),
  );
  const fromFeed = await timed(async () => {
    const rows = await recentRequests(store, filters, REQUESTS);
    return replay(current, editedSnapshot, feedItems(rows, current.discovery).items, { focus });
  });
  // The prediction alone (both snapshots compiled, every request predicted against both).
  const kept = await cases.list("bench", [owner]);
  const items = caseItems(kept, current.discovery).items;
  const predictOnly = await timed(async () => replay(current, editedSnapshot, items, { focus }));
  // Without the screen: every request predicted against both versions.
  const unscreened = await timed(async () => replay(current, editedSnapshot, items));
  // A policy's validation edited: every request predicted and its policies evaluated offline.
  const pw = policyWorld(current);
  const policy = await timed(async () => replay(pw.current, pw.edited, items, { focus: pw.focus }));
  await driver.close();
  console.log(
    JSON.stringify({
      cases: {
        ms: fromCases.ms,
        cpuMs: fromCases.cpuMs,
        replayed: fromCases.r.replayed.cases,
        changed: fromCases.r.changedCount,
      },
      feed: {
        ms: fromFeed.ms,
        cpuMs: fromFeed.cpuMs,
        replayed: fromFeed.r.replayed.feed,
        changed: fromFeed.r.changedCount,
      },
      predictOnly: {
        ms: predictOnly.ms,
        cpuMs: predictOnly.cpuMs,
        changed: predictOnly.r.changedCount,
      },
      unscreened: {
        ms: unscreened.ms,
        cpuMs: unscreened.cpuMs,
        changed: unscreened.r.changedCount,
      },
      policy: { ms: policy.ms, cpuMs: policy.cpuMs, changed: policy.r.changedCount },
    }),
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
