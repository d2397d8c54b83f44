/**
 * Query options and writes for the admission kinds the editor writes — webhook configurations,
 * admission policies and bindings (the browser side of /api/webhooks).
 */
import type { WorkloadLike } from "@/lib/admission/lint/deadlock";
import { queryOptions } from "@tanstack/react-query";
import type {
  AccessMap,
  AdmissionResource,
  LegacyAccessMap,
  WebhookResource,
} from "@/lib/webhooks/resource-kinds";
import type { BackendView } from "@/lib/webhooks/backend-view";
import type { CaBundleView } from "@/lib/k8s/x509";
import type { JsonSchema } from "@/lib/k8s/openapi-schema";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";
import type { ResourceRef } from "@/lib/k8s/resources";
import type { Labels } from "@/lib/admission/model/selectors";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { V1EndpointSlice, V1Pod, V1Service } from "@/lib/k8s/types";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { ApiError, apiFetch, contextHeaders } from "./fetch";
import { rereadEvery } from "./no-answer";
import { HEALTH_REREAD_MS } from "./health";
import type { CollectionData } from "./kube-list";
import type { OverviewData } from "./overview";
import { previousOfSameContext, queryKeys } from "./keys";

/**
 * An admission object as the apiserver returns it, as JSON (the editor's unit); the one
 * definition the server (server/kube/webhooks.ts) and the browser share.
 */
export interface ConfigObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    resourceVersion?: string;
    uid?: string;
    [k: string]: unknown;
  };
  webhooks?: Array<Record<string, unknown>>;
  [k: string]: unknown;
}

export interface HookDetails {
  name: string;
  ca: CaBundleView;
  backend: BackendView;
}

export interface WebhookDetails {
  resourceVersion: string;
  hooks: HookDetails[];
}

/** The v1 collection of a webhook resource. */
export function webhookRef(resource: WebhookResource): ResourceRef {
  return admissionRef(resource);
}

/** The v1 collection of an admission resource. */
export function admissionRef(resource: AdmissionResource): ResourceRef {
  return { group: ADMISSION_GROUP, version: "v1", resource };
}

const JSON_HEADERS = { "Content-Type": "application/json" };

/** Where the writes of a kind go (historical kinds share the routes of the v1 kinds). */
function writeBase(resource: AdmissionResource | LegacyResource): string {
  return `/api/webhooks/${resource}`;
}
export const webhookObjectQuery = (context: string, resource: AdmissionResource, name: string) =>
  queryOptions({
    queryKey: queryKeys.webhookObject(context, resource, name),
    queryFn: ({ signal }) =>
      apiFetch<ConfigObject>(`/api/webhooks/${resource}/${encodeURIComponent(name)}`, { signal }),
    staleTime: Infinity,
    retry: false,
  });

/**
 * How often the detail page reads its hooks' backends (Service, ports, endpoints) again: as often
 * as the health card beside them (healthQuery), so the two never disagree for long. Nothing the
 * page watches changes when a Service or its endpoints do.
 */
export const BACKEND_REREAD_MS = HEALTH_REREAD_MS;

/**
 * The decoded caBundles and the backends of a configuration's hooks at `resourceVersion`; the
 * backends are read again every BACKEND_REREAD_MS (sooner while the cluster does not answer).
 */
export const webhookDetailsQuery = (
  context: string,
  resource: WebhookResource,
  name: string,
  resourceVersion: string,
) =>
  queryOptions({
    queryKey: queryKeys.webhookDetails(context, resource, name, resourceVersion),
    queryFn: ({ signal }) =>
      apiFetch<WebhookDetails>(`/api/webhooks/${resource}/${encodeURIComponent(name)}/details`, {
        signal,
      }),
    staleTime: BACKEND_REREAD_MS,
    refetchInterval: rereadEvery(BACKEND_REREAD_MS),
    retry: false,
  });

/** GET /api/webhooks/lint-state: the live state the lint checks beyond the offline ones read. */
export interface LintStateData {
  namespaces: Record<string, Labels>;
  discovery: DiscoveryResource[];
  /** Undefined when the identity may not read them (the checks that need them are limited). */
  services?: V1Service[];
  endpointSlices?: V1EndpointSlice[];
  pods?: V1Pod[];
  /** Where a backend Service selects no pod: the workloads whose pod template it selects. */
  workloads?: WorkloadLike[];
  serverMinor?: number;
  notices: string[];
}

/**
 * How often a webhook page reads the lint's live state again while it is open. Nothing watches
 * the backends' Services, EndpointSlices and pods, the namespaces or discovery for these pages
 * (the deadlock map watches them; at scale the lint's few reads cost far less than those
 * collections streamed into every webhook page), and the usual fixes — a Service created, a
 * backend scaled up, a namespace labelled — change nothing the pages watch.
 */
export const LINT_STATE_REREAD_MS = 30_000;

/**
 * The backend Services the configurations' hooks call, `namespace/name` once each, sorted: the
 * lint state is read for them (its key carries them), so a hook added or pointed at another
 * Service has its backend read instead of judged by an answer that never looked at it.
 */
export function backendServicesKey(
  ...lists: ReadonlyArray<ReadonlyArray<ConfigLike> | undefined>
): string {
  const refs = new Set<string>();
  for (const list of lists)
    for (const c of list ?? [])
      for (const w of c.webhooks ?? []) {
        const s = w.clientConfig?.service;
        if (s?.namespace && s.name) refs.add(`${s.namespace}/${s.name}`);
      }
  return [...refs].sort().join(" ");
}

/**
 * GET /api/webhooks/lint-state for the configurations' backend Services (`services`, see
 * backendServicesKey): read again every LINT_STATE_REREAD_MS, sooner while the cluster does not
 * answer. The previous answer of the same context stays meanwhile (see lintStateToUse).
 */
export const lintStateQuery = (context: string, services: string) =>
  queryOptions({
    queryKey: queryKeys.lintState(context, services),
    queryFn: ({ signal }) => apiFetch<LintStateData>("/api/webhooks/lint-state", { signal }),
    staleTime: LINT_STATE_REREAD_MS,
    refetchInterval: rereadEvery(LINT_STATE_REREAD_MS),
    retry: false,
    placeholderData: previousOfSameContext(context),
  });

/**
 * The live state to lint with. An answer read for other backend Services (shown while the
 * configurations' own are read) goes without its backend part, so those checks run as offline
 * meanwhile: a Service it never read would otherwise be reported missing.
 */
export function lintStateToUse(
  data: LintStateData | undefined,
  readForOtherServices: boolean,
): LintStateData | undefined {
  if (!data || !readForOtherServices) return data;
  const rest = { ...data };
  delete rest.services;
  delete rest.endpointSlices;
  delete rest.pods;
  delete rest.workloads;
  return rest;
}

export const webhookAccessQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.webhookAccess(context),
    queryFn: ({ signal }) => apiFetch<AccessMap>("/api/webhooks/access", { signal }),
    staleTime: 60_000,
  });

/** What the identity may do with the historical kinds (one SelfSubjectAccessReview each). */
export const legacyAccessQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.legacyAccess(context),
    queryFn: ({ signal }) =>
      apiFetch<LegacyAccessMap>("/api/webhooks/access?kinds=legacy", { signal }),
    staleTime: 60_000,
  });

export const kindSchemaQuery = (context: string, resource: AdmissionResource) =>
  queryOptions({
    queryKey: queryKeys.kindSchema(context, resource),
    queryFn: ({ signal }) => apiFetch<JsonSchema>(`/api/webhooks/schema/${resource}`, { signal }),
    staleTime: Infinity,
    retry: false,
  });

/** Replaces (name given) or creates; `dryRun` returns the object as the server would store it. */
export function writeConfiguration(
  resource: AdmissionResource | LegacyResource,
  name: string | undefined,
  object: ConfigObject,
  dryRun: boolean,
): Promise<ConfigObject> {
  return apiFetch<ConfigObject>(
    name ? `${writeBase(resource)}/${encodeURIComponent(name)}` : writeBase(resource),
    {
      method: name ? "PUT" : "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify({ object, dryRun }),
    },
  );
}

export function deleteConfiguration(
  resource: AdmissionResource | LegacyResource,
  name: string,
  pre: { uid: string; resourceVersion: string },
): Promise<{ deleted: string }> {
  return apiFetch(`${writeBase(resource)}/${encodeURIComponent(name)}`, {
    method: "DELETE",
    headers: JSON_HEADERS,
    body: JSON.stringify(pre),
  });
}

/** One step of a rename and how it went. */
export interface RenameStep {
  step: string;
  ok: boolean;
  message?: string;
}

/** What a rename did (server/kube/webhooks.ts renameConfiguration). */
export interface RenameResult {
  ok: boolean;
  steps: RenameStep[];
  object?: ConfigObject;
  error?: { status: number; reason: string; message: string };
}

/** A failed rename: the error and every step taken (including the rollback). */
export class RenameError extends ApiError {
  constructor(
    body: { status: number; reason: string; message: string; cluster: string },
    readonly steps: RenameStep[],
  ) {
    super(body);
  }
}

export async function renameConfiguration(
  resource: WebhookResource | LegacyResource,
  name: string,
  newName: string,
  resourceVersion: string,
): Promise<{ ok: true; steps: RenameStep[] }> {
  const res = await fetch(`${writeBase(resource)}/${encodeURIComponent(name)}/rename`, {
    method: "POST",
    headers: { ...JSON_HEADERS, Accept: "application/json", ...contextHeaders() },
    body: JSON.stringify({ newName, resourceVersion }),
  });
  const body = (await res.json()) as {
    ok?: boolean;
    steps?: RenameStep[];
    status?: number;
    reason?: string;
    message?: string;
  };
  if (!res.ok)
    throw new RenameError(
      {
        status: body.status ?? res.status,
        reason: body.reason ?? "Error",
        message: body.message ?? `HTTP ${res.status}`,
        cluster: "",
      },
      body.steps ?? [],
    );
  return { ok: true, steps: body.steps ?? [] };
}

/**
 * What the server reads for the webhook list's first render (server/webhooks/list-seed.ts): whose
 * view it is and what the cluster serves, sent with the first screen of rows (small).
 */
export interface WebhookListSeedHead {
  context: string;
  overview: OverviewData;
}

/**
 * The served webhook configuration kinds' collections by refToString, items without
 * managedFields. They follow the first screen as one JSON text: one string is cheap to carry in
 * the page's payload and is parsed in the browser once a frame has painted, where an object tree
 * of thousands of hooks would cost the payload's per-value decoding before hydration.
 */
export type WebhookListSeedCollections = Record<string, CollectionData<ConfigLike>>;

/** The whole seed, once its collections are in: the query cache's first fill (initialData). */
export interface WebhookListSeed extends WebhookListSeedHead {
  collections: WebhookListSeedCollections;
}

/** The seed's collections from their JSON text (once per seed: callers memoise). */
export function parseSeedCollections(json: string): WebhookListSeedCollections {
  return JSON.parse(json) as WebhookListSeedCollections;
}
