/**
 * Break-glass on a webhook configuration or an admission policy binding: let its writes through for a bounded time, written as
 * the request's identity with the resourceVersion precondition, recorded on the object
 * (annotation) and in the store, and reverted on time — by whichever dashboard process claims
 * the episode in the store first (once across replicas sharing PostgreSQL), also after a restart
 * (start-up reads the open episodes from the store and the annotations in the cluster).
 *
 * Who writes the revert: an early revert, or an answer to kept fields, is the request's identity.
 * The revert on time has no request: in local mode it is written as the kubeconfig context that
 * broke the glass (recorded with the episode); in shared mode as the dashboard's own service
 * account, since the user's session may be gone by then — the outcome records it as
 * `portcullis (service account) on expiry of <actor>'s break-glass`, and the apiserver's audit
 * log names the account. That account needs get and update on the webhook configurations and
 * the admission policy bindings (and delete on clusterroles and clusterrolebindings for a grant), which the chart does not grant by
 * default (docs/operating.md, "Break-glass"): without it the revert on expiry is refused, retried,
 * and the banner shows the refusal until someone reverts it as themselves.
 */
import "server-only";
import { randomUUID } from "node:crypto";
import { KubeApiError } from "@/lib/k8s/errors";
import { dashboardError } from "@/lib/api/contract";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { WEBHOOK_GROUP } from "@/lib/webhooks/resource-kinds";
import { engineEditWarning } from "@/lib/engines/edit-warning";
import { engineLabel } from "@/lib/engines/view";
import {
  activeRecord,
  breakglassCheckOf,
  grantObjects,
  planBreakGlass,
  planRevert,
  BREAK_GLASS_LABEL,
  type ConfigurationObject,
} from "@/lib/admission/break-glass/plan";
import { controllerWarnings } from "@/lib/admission/break-glass/controllers";
import {
  BREAK_GLASS_RESOURCES,
  isBindingBreakGlass,
  modesFor,
  type BreakGlassMode,
  type BreakGlassRecord,
  type BreakGlassResource,
} from "@/lib/admission/break-glass/record";
import type {
  BreakGlassList,
  BreakGlassPreview,
  ControllerWarningView,
  EpisodeView,
  RevertOutcome,
} from "@/lib/api/break-glass";
import type { KubeClient } from "@/server/kube/client";
import { kubeClientFor } from "@/server/kube/client";
import { canI } from "@/server/kube/access";
import { isSharedMode, loadKubeConfig, resolveContext } from "@/server/kube/config";
import { selfSubjectReview } from "@/server/kube/admission-state";
import { decisionStore } from "@/server/decisions/instance";
import { BreakGlassStore, type EpisodeRow } from "@/server/decisions/store/break-glass";
import { breakGlassConfig, type BreakGlassConfig } from "./config";
import { EpisodeTimers, systemTimerClock, type TimerClock } from "./timers";
import { notifyBreakGlass, openFingerprint } from "./events";

const KIND: Record<BreakGlassResource, string> = {
  validatingwebhookconfigurations: "ValidatingWebhookConfiguration",
  mutatingwebhookconfigurations: "MutatingWebhookConfiguration",
  validatingadmissionpolicybindings: "ValidatingAdmissionPolicyBinding",
  mutatingadmissionpolicybindings: "MutatingAdmissionPolicyBinding",
};

const pathOf = (r: BreakGlassResource, name?: string) =>
  `/apis/${WEBHOOK_GROUP}/v1/${r}${name !== undefined ? `/${encodeURIComponent(name)}` : ""}`;

function refused(status: number, reason: string, message: string): KubeApiError {
  return new KubeApiError(dashboardError({ status, reason, message }));
}

interface State {
  store?: Promise<BreakGlassStore>;
  timers: EpisodeTimers;
  clock: TimerClock;
  /** Names this process in the claims it takes. */
  owner: string;
  started: boolean;
  sweep?: NodeJS.Timeout;
  /** Revert attempts running here, by episode. */
  running: Map<string, Promise<void>>;
  /** The open episodes as the last sweep read them (openFingerprint). */
  lastOpen?: string;
}

const g = globalThis as typeof globalThis & { portcullisBreakGlass?: State };

function state(): State {
  g.portcullisBreakGlass ??= {
    timers: new EpisodeTimers(systemTimerClock),
    clock: systemTimerClock,
    owner: randomUUID(),
    started: false,
    running: new Map(),
  };
  return g.portcullisBreakGlass;
}

const config = (): BreakGlassConfig => breakGlassConfig();

/** The episode table, in the decision store's database (created on first use). */
function breakGlassStore(): Promise<BreakGlassStore> {
  const s = state();
  if (!s.store) {
    const opening = (async () => {
      const store = new BreakGlassStore((await decisionStore()).driver);
      await store.migrate();
      return store;
    })();
    s.store = opening;
    opening.catch(() => {
      if (s.store === opening) s.store = undefined;
    });
  }
  return s.store;
}

/** Who the apiserver takes the client for; the context's name when it will not say. */
async function actorOf(client: KubeClient, signal?: AbortSignal): Promise<string> {
  try {
    const r = await selfSubjectReview(client, signal);
    const name = r.status?.userInfo?.username;
    if (name) return name;
  } catch {
    // an apiserver that will not say: fall back to the context
  }
  return client.context;
}

/** May the identity patch and update this configuration (what a break-glass and its revert write)? */
async function mayWrite(
  client: KubeClient,
  resource: BreakGlassResource,
  name: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const [patch, update] = await Promise.all(
    ["patch", "update"].map((verb) =>
      canI(client, { group: WEBHOOK_GROUP, resource, verb, name }, signal),
    ),
  );
  return patch === true && update === true;
}

async function mayGrant(client: KubeClient, signal?: AbortSignal): Promise<boolean> {
  const answers = await Promise.all(
    ["clusterroles", "clusterrolebindings"].flatMap((resource) =>
      ["create", "delete"].map((verb) =>
        canI(client, { group: "rbac.authorization.k8s.io", resource, verb }, signal),
      ),
    ),
  );
  return answers.every(Boolean);
}

function parseOutcome(text: string | undefined): RevertOutcome | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as RevertOutcome;
  } catch {
    return undefined;
  }
}

function view(row: EpisodeRow, canRevert: boolean): EpisodeView {
  const r = row.record;
  const outcome = parseOutcome(row.outcome);
  return {
    id: r.id,
    mode: r.mode,
    resource: r.resource,
    name: r.name,
    hooks: r.hooks,
    ...(r.namespaces ? { namespaces: r.namespaces } : {}),
    ...(r.grant ? { group: r.grant.group } : {}),
    fields: r.fields,
    startedAt: r.startedAt,
    expiresAt: r.expiresAt,
    actor: r.actor,
    reason: r.reason,
    state: row.state,
    ...(outcome ? { outcome } : {}),
    canRevert,
    attempts: row.attempts,
  };
}

/** The emergency switches of the engines, beyond the ones lib/engines/edit-warning gives. */
const ENGINE_SWITCHES: Record<string, string[]> = {
  // kyverno api/kyverno/v1/spec_types.go Spec.GetFailurePolicy: toggle ForceFailurePolicyIgnore
  // (the admission controller's --forceFailurePolicyIgnore flag; chart value
  // features.forceFailurePolicyIgnore.enabled) makes every policy's webhook failurePolicy Ignore.
  kyverno: [
    "Kyverno's own switch: start its admission controller with --forceFailurePolicyIgnore (chart value features.forceFailurePolicyIgnore.enabled: true): every policy's webhooks are then registered with failurePolicy Ignore (kyverno api/kyverno/v1/spec_types.go, Spec.GetFailurePolicy).",
  ],
  // gatekeeper charts/gatekeeper templates: the validating webhook configuration is rendered only
  // `if not .Values.disableValidatingWebhook`.
  gatekeeper: [
    "Gatekeeper's chart has disableValidatingWebhook: true, which stops rendering its ValidatingWebhookConfiguration (charts/gatekeeper, gatekeeper-validating-webhook-configuration template).",
  ],
};

/** What the controllers that own the object will do to a break-glass, and their own switches. */
function warningsFor(
  obj: ConfigurationObject,
  resource: BreakGlassResource,
  hooks: readonly string[],
  mode: BreakGlassMode,
): ControllerWarningView[] {
  const out: ControllerWarningView[] = [];
  const engine = engineEditWarning(KIND[resource], obj);
  if (engine)
    out.push({
      who: engineLabel(engine.engine),
      text: `${engine.reverts} A break-glass here may be undone before its time; the revert then finds the fields changed and leaves them.`,
      emergency: [...engine.emergency, ...(ENGINE_SWITCHES[engine.engine] ?? [])],
    });
  for (const w of controllerWarnings(obj, hooks, mode, resource))
    out.push({ who: w.who, text: w.text, emergency: w.emergency ? [w.emergency] : [] });
  return out;
}

async function getObject(
  client: KubeClient,
  resource: BreakGlassResource,
  name: string,
  signal?: AbortSignal,
): Promise<ConfigurationObject> {
  return client.request<ConfigurationObject>({ path: pathOf(resource, name), signal });
}

async function putObject(
  client: KubeClient,
  resource: BreakGlassResource,
  obj: ConfigurationObject,
  signal?: AbortSignal,
): Promise<ConfigurationObject> {
  if (!obj.metadata?.resourceVersion) throw new Error("a write without its precondition");
  return client.request<ConfigurationObject>({
    method: "PUT",
    path: pathOf(resource, obj.metadata?.name ?? ""),
    query: { fieldValidation: "Strict" },
    body: obj,
    signal,
  });
}

export async function preview(
  client: KubeClient,
  input: { resource: BreakGlassResource; name: string; hook?: string; mode: BreakGlassMode },
  signal?: AbortSignal,
): Promise<BreakGlassPreview> {
  const obj = await getObject(client, input.resource, input.name, signal);
  const [allowed, grantAllowed] = await Promise.all([
    mayWrite(client, input.resource, input.name, signal),
    mayGrant(client, signal),
  ]);
  const binding = isBindingBreakGlass(input.resource);
  const hooks = binding
    ? [{ name: input.name, breakglassCheck: false }]
    : (obj.webhooks ?? []).map((h) => ({
        name: h.name ?? "",
        ...(h.failurePolicy ? { failurePolicy: h.failurePolicy } : {}),
        breakglassCheck: breakglassCheckOf(h) !== undefined,
      }));
  const chosen = input.hook ? [input.hook] : hooks.map((h) => h.name);
  const record = activeRecord(obj);
  const row = record ? await (await breakGlassStore()).get(record.id) : undefined;
  const c = config();
  return {
    allowed,
    grantAllowed: allowed && grantAllowed && !binding,
    hooks,
    ...(binding
      ? {
          binding: {
            policyName: obj.spec?.policyName ?? "",
            ...(obj.spec?.validationActions
              ? { validationActions: obj.spec.validationActions }
              : {}),
          },
        }
      : {}),
    modes: modesFor(input.resource),
    warnings: warningsFor(obj, input.resource, chosen, input.mode),
    ...(record
      ? {
          active: view(
            row ?? { record, context: client.context, state: "active", attempts: 0 },
            allowed,
          ),
        }
      : {}),
    maxMinutes: c.maxMs / 60_000,
    defaultMinutes: c.defaultMs / 60_000,
  };
}

export interface StartInput {
  resource: BreakGlassResource;
  name: string;
  hook?: string;
  mode: BreakGlassMode;
  namespaces?: string[];
  group?: string;
  reason: string;
  durationSeconds?: number;
}

/** Breaks the glass as the request's identity; 403 when it may not write the configuration. */
export async function startBreakGlass(
  client: KubeClient,
  input: StartInput,
  signal?: AbortSignal,
): Promise<EpisodeView> {
  const c = config();
  if (!modesFor(input.resource).includes(input.mode))
    throw refused(
      400,
      "BadRequest",
      `${input.mode} does not apply to ${input.resource}: ${modesFor(input.resource).join(", ")} do`,
    );
  const durationMs =
    input.durationSeconds !== undefined ? input.durationSeconds * 1000 : c.defaultMs;
  if (durationMs > c.maxMs)
    throw refused(
      400,
      "BadRequest",
      `a break-glass lasts at most ${c.maxMs / 60_000} minutes (PORTCULLIS_BREAK_GLASS_MAX_MINUTES)`,
    );
  if (!(await mayWrite(client, input.resource, input.name, signal)))
    throw new KubeApiError({
      status: 403,
      reason: "Forbidden",
      message: `you may not patch and update ${input.resource} ${input.name} (the apiserver's RBAC for your user): break-glass writes as you`,
      cluster: client.server,
    });
  if (input.mode === "grant" && !(await mayGrant(client, signal)))
    throw new KubeApiError({
      status: 403,
      reason: "Forbidden",
      message:
        "you may not create and delete clusterroles and clusterrolebindings: a grant break-glass creates them as you",
      cluster: client.server,
    });
  const [obj, actor] = await Promise.all([
    getObject(client, input.resource, input.name, signal),
    actorOf(client, signal),
  ]);
  const id = randomUUID().slice(0, 18).replaceAll("-", "");
  const planned = planBreakGlass(obj, {
    id,
    resource: input.resource,
    mode: input.mode,
    ...(input.hook !== undefined ? { hook: input.hook } : {}),
    ...(input.namespaces ? { namespaces: input.namespaces } : {}),
    ...(input.group !== undefined ? { group: input.group } : {}),
    actor,
    reason: input.reason,
    now: state().clock.now(),
    durationMs,
  });
  if (!planned.ok) throw refused(409, "Conflict", planned.message);
  const { object, record } = planned.value;
  if (record.grant) {
    const { role, binding } = grantObjects(record.grant, { [BREAK_GLASS_LABEL]: id });
    await client.request({
      method: "POST",
      path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      body: role,
      signal,
    });
    try {
      await client.request({
        method: "POST",
        path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        body: binding,
        signal,
      });
    } catch (e) {
      await removeGrant(client, record).catch(() => undefined);
      throw e;
    }
  }
  try {
    await putObject(client, input.resource, object, signal);
  } catch (e) {
    if (record.grant) await removeGrant(client, record).catch(() => undefined);
    throw e;
  }
  const store = await breakGlassStore();
  await store.insert(record, client.context);
  schedule(record);
  notifyBreakGlass();
  return view({ record, context: client.context, state: "active", attempts: 0 }, true);
}

async function removeGrant(client: KubeClient, record: BreakGlassRecord): Promise<boolean> {
  if (!record.grant) return false;
  let removed = false;
  for (const kind of ["clusterrolebindings", "clusterroles"]) {
    try {
      await client.request({
        method: "DELETE",
        path: `/apis/rbac.authorization.k8s.io/v1/${kind}/${record.grant.name}`,
      });
      removed = true;
    } catch (e) {
      if (!(e instanceof KubeApiError && e.status === 404)) throw e;
    }
  }
  return removed;
}

/** The client a revert on expiry writes with, and how the outcome names it. */
function expiryClient(row: EpisodeRow): { client: KubeClient; by: string } {
  if (isSharedMode())
    return {
      client: kubeClientFor(SHARED_CONTEXT),
      by: `portcullis (service account) on expiry of ${row.record.actor}'s break-glass`,
    };
  return { client: kubeClientFor(row.context), by: row.context };
}

/**
 * Writes the revert: GET, plan field by field, PUT with the resourceVersion read (a 409 —
 * someone wrote between — reads and plans again, a few times).
 */
async function writeRevert(
  client: KubeClient,
  row: EpisodeRow,
  by: string,
  trigger: RevertOutcome["trigger"],
  force: ReadonlySet<string>,
): Promise<RevertOutcome> {
  const record = row.record;
  for (let attempt = 0; ; attempt++) {
    let current: ConfigurationObject;
    try {
      current = await getObject(client, record.resource, record.name);
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 404) {
        const grantRemoved = await removeGrant(client, record);
        return {
          at: state().clock.now(),
          by,
          trigger,
          restored: [],
          already: [],
          kept: [],
          gone: true,
          ...(record.grant ? { grantRemoved } : {}),
        };
      }
      throw e;
    }
    const plan = planRevert(current, record, force);
    try {
      if (plan.object) await putObject(client, record.resource, plan.object);
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 409 && attempt < 4) continue;
      throw e;
    }
    const grantRemoved = record.grant ? await removeGrant(client, record) : undefined;
    return {
      at: state().clock.now(),
      by,
      trigger,
      restored: plan.restored.map((f) => ({ hook: f.hook, field: f.field })),
      already: plan.already.map((f) => ({ hook: f.hook, field: f.field })),
      kept: plan.kept.map((k) => ({
        hook: k.hook,
        field: k.field,
        original: k.original,
        set: k.set,
        now: k.now,
        hookGone: k.hookGone,
        changedBy: k.changedBy.map((m) => ({
          manager: m.manager,
          operation: m.operation,
          ...(m.time ? { time: m.time } : {}),
        })),
      })),
      ...(grantRemoved !== undefined ? { grantRemoved } : {}),
    };
  }
}

/**
 * Claims and performs a revert. `early`: a user's, before the expiry (as `client`); otherwise due
 * now, as the expiry identity. Resolves false when another process holds or finished it.
 */
async function claimAndRevert(
  id: string,
  opts: { early: boolean; client?: KubeClient; by?: string },
): Promise<boolean> {
  const s = state();
  const store = await breakGlassStore();
  const row = await store.get(id);
  if (!row) return false;
  const c = config();
  if (!(await store.claim(id, s.owner, s.clock.now(), c.leaseMs, opts.early))) return false;
  await store.begin(id);
  s.timers.cancel(id);
  notifyBreakGlass();
  const who = opts.client
    ? { client: opts.client, by: opts.by ?? opts.client.context }
    : expiryClient(row);
  try {
    const outcome = await writeRevert(
      who.client,
      row,
      who.by,
      opts.early ? "early" : "expiry",
      new Set(),
    );
    await store.finish(
      id,
      s.owner,
      outcome.kept.length > 0 ? "kept" : "reverted",
      JSON.stringify(outcome),
      s.clock.now(),
    );
    notifyBreakGlass();
    return true;
  } catch (e) {
    const outcome: RevertOutcome = {
      at: s.clock.now(),
      by: who.by,
      trigger: opts.early ? "early" : "expiry",
      restored: [],
      already: [],
      kept: [],
      error: e instanceof Error ? e.message : String(e),
    };
    await store.release(id, s.owner, JSON.stringify(outcome)).catch(() => undefined);
    notifyBreakGlass();
    if (opts.early) throw e;
    // Due and failed (the apiserver unreachable, the identity refused): try again soon.
    s.timers.schedule(id, s.clock.now() + Math.min(c.sweepMs, 5_000), fire);
    return false;
  }
}

/** A timer's end: revert once, whoever else is trying. */
function fire(id: string): void {
  const s = state();
  if (s.running.has(id)) return;
  const run = claimAndRevert(id, { early: false })
    .then(() => undefined)
    .catch(() => undefined)
    .finally(() => s.running.delete(id));
  s.running.set(id, run);
}

function schedule(record: BreakGlassRecord): void {
  state().timers.schedule(record.id, record.expiresAt, fire);
}

/** Reverts now as the request's identity (403 when it may not write the configuration). */
export async function revertNow(
  client: KubeClient,
  id: string,
  answer: { force: string[]; keep: boolean },
  signal?: AbortSignal,
): Promise<EpisodeView> {
  const store = await breakGlassStore();
  const row = await store.get(id);
  if (!row) throw refused(404, "NotFound", `no break-glass ${id}`);
  if (!(await mayWrite(client, row.record.resource, row.record.name, signal)))
    throw new KubeApiError({
      status: 403,
      reason: "Forbidden",
      message: `you may not patch and update ${row.record.resource} ${row.record.name}: a revert writes as you`,
      cluster: client.server,
    });
  const by = await actorOf(client, signal);
  if (row.state === "kept") {
    const previous = parseOutcome(row.outcome);
    let outcome: RevertOutcome = {
      at: state().clock.now(),
      by,
      trigger: "answer",
      restored: [],
      already: [],
      kept: previous?.kept ?? [],
    };
    if (!answer.keep && answer.force.length > 0)
      outcome = await writeRevert(client, row, by, "answer", new Set(answer.force));
    await store.close(id, JSON.stringify({ ...outcome, previous }), state().clock.now());
    notifyBreakGlass();
  } else if (row.state === "active" || row.state === "reverting") {
    const done = await claimAndRevert(id, { early: true, client, by });
    if (!done) throw refused(409, "Conflict", "this break-glass is being reverted already");
  } else {
    throw refused(409, "Conflict", "this break-glass has ended");
  }
  const after = await store.get(id);
  return view(after ?? row, true);
}

/** The active and waiting episodes, each with whether the request's identity may revert it. */
export async function listEpisodes(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<BreakGlassList> {
  // Shared mode: what was let through, by whom and why, is for those who may read the
  // configurations themselves (local mode: the context's own cluster).
  // Each kind's episodes are shown to those who may list that kind.
  let shown: (r: EpisodeRow) => boolean = () => true;
  if (isSharedMode()) {
    const may = await Promise.all(
      BREAK_GLASS_RESOURCES.map((resource) =>
        canI(client, { group: WEBHOOK_GROUP, resource, verb: "list" }, signal),
      ),
    );
    if (!may.slice(0, 2).every(Boolean))
      throw new KubeApiError({
        status: 403,
        reason: "Forbidden",
        message: "you may not list the webhook configurations, so their break-glass is not shown",
        cluster: client.server,
      });
    const listable = new Set(BREAK_GLASS_RESOURCES.filter((_, i) => may[i] === true));
    shown = (r) => listable.has(r.record.resource);
  }
  const store = await breakGlassStore();
  const [all, allEnded] = await Promise.all([store.open(), store.ended(10)]);
  const rows = all.filter(shown);
  const ended = allEnded.filter(shown);
  const may = new Map<string, Promise<boolean>>();
  const canRevert = (r: EpisodeRow) => {
    const key = `${r.record.resource}/${r.record.name}`;
    if (!may.has(key))
      may.set(
        key,
        mayWrite(client, r.record.resource, r.record.name, signal).catch(() => false),
      );
    return may.get(key) as Promise<boolean>;
  };
  const views = await Promise.all(rows.map(async (r) => view(r, await canRevert(r))));
  return {
    now: state().clock.now(),
    active: views.filter((v) => v.state === "active" || v.state === "reverting"),
    kept: views.filter((v) => v.state === "kept"),
    ended: ended.map((r) => view(r, false)),
  };
}

/** Open episodes from the store get a timer here (those another replica started too). */
async function sweep(): Promise<void> {
  const s = state();
  const rows = await (await breakGlassStore()).open();
  // Another replica started, reverted or answered one: this process's streams are told too.
  const seen = openFingerprint(rows);
  if (s.lastOpen !== undefined && s.lastOpen !== seen) notifyBreakGlass();
  s.lastOpen = seen;
  for (const r of rows) {
    if (r.state === "kept") continue;
    if (r.state === "reverting") {
      // Held by a claimer; if it died, its lease runs out and the claim can be taken over.
      if (!s.timers.has(r.record.id) && !s.running.has(r.record.id))
        s.timers.schedule(r.record.id, s.clock.now() + config().leaseMs, fire);
      continue;
    }
    if (!s.timers.has(r.record.id) && !s.running.has(r.record.id)) schedule(r.record);
  }
}

/** The contexts whose clusters are read for annotations at start. */
function contextsToScan(stored: readonly EpisodeRow[]): string[] {
  if (isSharedMode()) return [SHARED_CONTEXT];
  const names = new Set(
    loadKubeConfig()
      .getContexts()
      .map((c) => c.name),
  );
  const out = new Set<string>();
  try {
    out.add(resolveContext(undefined));
  } catch {
    // no kubeconfig: nothing to scan
  }
  for (const r of stored) if (names.has(r.context)) out.add(r.context);
  return [...out].filter((c) => c !== "");
}

/** Episodes recorded in the cluster's annotations that the store lacks are adopted. */
async function adoptFromCluster(store: BreakGlassStore): Promise<void> {
  const stored = await store.open();
  const seen = new Set<string>();
  for (const context of contextsToScan(stored)) {
    const client = kubeClientFor(context);
    const server = client.server;
    if (seen.has(server)) continue;
    seen.add(server);
    for (const resource of BREAK_GLASS_RESOURCES) {
      const list = await client
        .request<{ items?: ConfigurationObject[] }>({ path: pathOf(resource) })
        .catch(() => ({ items: [] as ConfigurationObject[] }));
      for (const obj of list.items ?? []) {
        const record = activeRecord(obj);
        if (record && record.resource === resource && (await store.insert(record, context)))
          notifyBreakGlass();
      }
    }
  }
}

/**
 * Starts break-glass in this process (instrumentation.ts): adopt what the cluster records, give
 * every open episode a timer (overdue ones fire at once), and sweep the store from then on.
 * `clock` lets tests drive the time.
 */
export async function startBreakGlassReverts(clock: TimerClock = systemTimerClock): Promise<void> {
  const s = state();
  if (s.started) return;
  s.started = true;
  s.clock = clock;
  s.timers = new EpisodeTimers(clock);
  const c = config();
  // Until the store opens (a database still starting), adoption is tried again each sweep.
  let adopted = false;
  const round = async () => {
    if (!adopted) {
      await adoptFromCluster(await breakGlassStore());
      adopted = true;
    }
    await sweep();
  };
  await round().catch(() => undefined);
  s.sweep = setInterval(() => void round().catch(() => undefined), c.sweepMs);
  s.sweep.unref();
}
