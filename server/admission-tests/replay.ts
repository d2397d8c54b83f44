/**
 * Replay before apply, on the server: the admission state read as the request's identity (as
 * the predict page reads it), the configuration's kept cases, and the last requests the decision
 * feed holds for the hooks being edited, read with their audit events from the store. It runs
 * here, not in the browser: the requests' objects are in the store (10,000 events are tens of
 * megabytes the browser need not fetch), and the prediction is the same code either way.
 */
import { expectationsFromPrediction } from "@/lib/admission/testing/from-prediction";
import "server-only";
import { KubeApiError } from "@/lib/k8s/errors";
import { dashboardError } from "@/lib/api/contract";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { predict } from "@/lib/admission/prediction/predict";
import {
  admissionRequestOf,
  caseRequestOfDecision,
  testCaseOf,
  testRequestOf,
} from "@/lib/replay/case";
import { storedIn, withEdit, type EditableResource } from "@/lib/replay/edit-snapshot";
import {
  caseItems,
  feedFiltersOf,
  feedItems,
  newestRequests,
  ownersOf,
  type FeedRequest,
  type Owner,
} from "@/lib/replay/replay-input";
import { replay } from "@/lib/replay/replay";
import type { FullParams } from "@/lib/replay/policy-verdicts";
import type { JsonObject } from "@/lib/admission/model/request";
import { listCollection } from "@/server/kube/list-collection";
import type { KubeClient } from "@/server/kube/client";
import type { ReplayInput, ReplayResponse, StoredCase } from "@/lib/api/admission-tests";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { readAdmissionState } from "@/server/kube/admission-state";
import { manifestWatcherFromEnv } from "@/server/kube/admission-manifests";
import { visibleManifestDirs } from "@/server/kube/admission-manifests-access";
import { admissionConfigFromEnv } from "@/server/admission-config";
import { clientFor, contextOf } from "@/server/kube/identity";
import type { DecisionStore } from "@/server/decisions/store";
import type { CaseStore } from "./case-store";

/** The admission state the predict page predicts from, read as the request's identity. */
export async function readSnapshot(
  request: Request,
): Promise<{ snapshot: AdmissionSnapshot; notices: string[]; context: string }> {
  const client = clientFor(request);
  const dirs = manifestWatcherFromEnv()?.state().dirs;
  const manifests = dirs && (await visibleManifestDirs(client, dirs, request.signal));
  const state = await readAdmissionState(client, {
    signal: request.signal,
    ...(manifests ? { manifests } : {}),
  });
  const admission = admissionConfigFromEnv();
  const snapshot = admission.podSecurity
    ? { ...state.snapshot, podSecurity: admission.podSecurity }
    : state.snapshot;
  return {
    snapshot,
    notices: [...state.notices, ...(admission.error ? [admission.error] : [])],
    context: contextOf(request),
  };
}

/**
 * The param objects of the validating policies (as stored and as edited) in full, read as the
 * request's identity: a replay evaluates the policies' validations with them. A kind that cannot
 * be listed is left out (its bindings' verdicts are then undecided, and say so).
 */
export async function readFullParams(
  client: KubeClient,
  snapshot: AdmissionSnapshot,
  edited: Record<string, unknown> | undefined,
  signal?: AbortSignal,
): Promise<FullParams> {
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  const policies: unknown[] = [...(snapshot.validatingAdmissionPolicies ?? []), edited];
  for (const p of policies) {
    const pk = (
      p as { spec?: { paramKind?: { apiVersion?: unknown; kind?: unknown } } } | undefined
    )?.spec?.paramKind;
    if (typeof pk?.apiVersion === "string" && typeof pk.kind === "string")
      kinds.set(`${pk.apiVersion}/${pk.kind}`, { apiVersion: pk.apiVersion, kind: pk.kind });
  }
  const out = new Map<string, Map<string, JsonObject>>();
  await Promise.all(
    [...kinds].map(async ([key, { apiVersion, kind }]) => {
      const slash = apiVersion.indexOf("/");
      const group = slash < 0 ? "" : apiVersion.slice(0, slash);
      const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
      const d = snapshot.discovery?.find(
        (r) => r.group === group && r.version === version && r.kind === kind,
      );
      if (!d) return;
      try {
        const list = await listCollection(client, { group, version, resource: d.resource }, signal);
        const byName = new Map<string, JsonObject>();
        for (const o of list.items) {
          const m = (o.metadata ?? {}) as { name?: unknown; namespace?: unknown };
          const name = typeof m.name === "string" ? m.name : "";
          byName.set(typeof m.namespace === "string" ? `${m.namespace}/${name}` : name, o);
        }
        out.set(key, byName);
      } catch (e) {
        if (signal?.aborted) throw e;
      }
    }),
  );
  return out;
}

/** The last `limit` requests the store holds for the filters' hooks, with their events. */
export async function recentRequests(
  store: DecisionStore,
  filters: ReturnType<typeof feedFiltersOf>,
  limit: number,
): Promise<FeedRequest[]> {
  if (limit === 0) return [];
  const rows: FeedRequest[] = [];
  for (const f of filters) rows.push(...(await store.listRequests(f, limit)));
  return newestRequests(rows, limit);
}

/** Replays an edit: the kept cases and the feed's last requests, before and after it. */
export async function replayEdit(opts: {
  input: ReplayInput;
  snapshot: AdmissionSnapshot;
  context: string;
  cases: CaseStore;
  /** Undefined when the identity may not read decisions: only the kept cases are replayed. */
  decisions: DecisionStore | undefined;
  notices: string[];
  /** The validating policies' param objects in full (readFullParams). */
  params?: FullParams;
}): Promise<ReplayResponse> {
  const { input, snapshot } = opts;
  const resource = input.resource as EditableResource;
  const name = input.name || strName(input.object);
  const stored = storedIn(snapshot, resource, input.name);
  const owners: Owner[] = ownersOf(resource, name, input.object, stored);
  const kept = await opts.cases.list(opts.context, owners);
  const limit = input.limit ?? 10_000;
  const feed = opts.decisions
    ? await recentRequests(
        opts.decisions,
        feedFiltersOf(resource, name, input.object, stored),
        limit,
      )
    : [];
  const c = caseItems(kept, snapshot.discovery);
  const f = feedItems(feed, snapshot.discovery);
  const edited = withEdit(snapshot, resource, input.name || name, input.object);
  const result = replay(snapshot, edited, [...c.items, ...f.items], {
    focus: { resource, name: input.name || name, stored, edited: input.object },
    ...(opts.params ? { params: opts.params } : {}),
  });
  const times = feed.map((r) => r.time);
  return {
    ...result,
    unreadable: c.unreadable + f.unreadable,
    notices: opts.notices,
    feedRead: opts.decisions !== undefined,
    ...(times.length > 0 ? { feedSpan: { from: Math.min(...times), to: Math.max(...times) } } : {}),
  };
}

function strName(o: Record<string, unknown>): string {
  const m = o.metadata;
  const n = m && typeof m === "object" ? (m as Record<string, unknown>).name : undefined;
  return typeof n === "string" ? n : "";
}

const WEBHOOK_LISTS = {
  mutatingwebhookconfigurations: "mutatingWebhookConfigurations",
  validatingwebhookconfigurations: "validatingWebhookConfigurations",
} as const;

/**
 * The configuration a decision's case is kept for: its webhook configuration (a webhook whose
 * phase the event does not tell is looked up in the snapshot), or its policy.
 */
function ownerOfDecision(d: DecisionRecord, snapshot: AdmissionSnapshot): Owner | undefined {
  switch (d.kind) {
    case "mutating-webhook":
      return d.configuration
        ? { resource: "mutatingwebhookconfigurations", name: d.configuration }
        : undefined;
    case "validating-webhook":
      return d.configuration
        ? { resource: "validatingwebhookconfigurations", name: d.configuration }
        : undefined;
    case "validating-policy":
      return { resource: "validatingadmissionpolicies", name: d.hook };
    case "mutating-policy":
      return { resource: "mutatingadmissionpolicies", name: d.hook };
    case "webhook":
      for (const [resource, list] of Object.entries(WEBHOOK_LISTS))
        for (const cfg of snapshot[list] ?? [])
          if (
            (d.configuration === "" || cfg.metadata?.name === d.configuration) &&
            (cfg.webhooks ?? []).some((w) => w.name === d.hook)
          )
            return { resource, name: cfg.metadata?.name ?? "" };
      return undefined;
    case "pod-security":
      return undefined;
  }
}

/**
 * Keeps a decision as a case: its request from the audit event, the namespace's labels the
 * dashboard knows now, and what the predictor expects of it against the current state.
 */
export async function saveDecisionCase(opts: {
  decision: DecisionRecord;
  rawEvent: string;
  snapshot: AdmissionSnapshot;
  context: string;
  owner: Owner | undefined;
  cases: CaseStore;
}): Promise<StoredCase> {
  const { decision, snapshot } = opts;
  const labels = snapshot.namespaces?.[decision.request.namespace];
  const request = caseRequestOfDecision(decision.request, opts.rawEvent, labels, "saved");
  if (!request)
    throw new KubeApiError(
      dashboardError({
        status: 422,
        reason: "Invalid",
        message: `decision ${decision.id} names no admission request (its audit event has no operation or resource)`,
      }),
    );
  const owner = opts.owner ?? ownerOfDecision(decision, snapshot);
  if (!owner)
    throw new KubeApiError(
      dashboardError({
        status: 422,
        reason: "Invalid",
        message: `decision ${decision.id} (${decision.kind} ${decision.hook}) belongs to no webhook configuration or policy this identity can read: name the configuration to keep its case for`,
      }),
    );
  const t = testRequestOf(request);
  const e = predict(admissionRequestOf(t, snapshot.discovery), snapshot);
  const expect = expectationsFromPrediction(e.prediction, (s) => e.explainer.skip(s).message);
  const c = testCaseOf(request, expect, {
    from: "decision",
    ref: decision.auditID,
    at: new Date(decision.time).toISOString(),
    configuration: opts.context,
  });
  return opts.cases.save(opts.context, owner, c);
}
