/**
 * Query options and writes for the admission kinds the editor writes — webhook configurations,
 * admission policies and bindings (the browser side of /api/webhooks).
 */
import { queryOptions } from "@tanstack/react-query";
import type {
  AccessMap,
  AdmissionResource,
  LegacyAccessMap,
  WebhookResource,
} from "@/lib/webhooks/resource-kinds";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";
import type { ResourceRef } from "@/lib/k8s/resources";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { ApiError, callApi, routeError } from "@/lib/api/client";
import {
  createConfigurationRoute,
  deleteConfigurationRoute,
  fightsRoute,
  kindSchemaRoute,
  lintStateRoute,
  readConfigurationRoute,
  renameConfigurationRoute,
  replaceConfigurationRoute,
  webhookAccessRoute,
  webhookDetailsRoute,
  type ConfigObject,
  type LintStateData,
  type RenameErrorBody,
  type RenameStep,
} from "@/lib/api/webhooks";
import { rereadEvery } from "./no-answer";
import { HEALTH_REREAD_MS } from "./health";
import { previousOfSameContext, queryKeys } from "./keys";

/** The v1 collection of a webhook resource. */
export function webhookRef(resource: WebhookResource): ResourceRef {
  return admissionRef(resource);
}

/** The v1 collection of an admission resource. */
function admissionRef(resource: AdmissionResource): ResourceRef {
  return { group: ADMISSION_GROUP, version: "v1", resource };
}

export const webhookObjectQuery = (context: string, resource: AdmissionResource, name: string) =>
  queryOptions({
    queryKey: queryKeys.webhookObject(context, resource, name),
    queryFn: ({ signal }) =>
      callApi(readConfigurationRoute, { params: { resource, name }, signal }),
    staleTime: Infinity,
    retry: false,
  });

/**
 * The object with its managedFields at `resourceVersion`, for the provenance of its fields (the
 * lists the pages hold leave managedFields out): read again when the object changes.
 */
export const provenanceObjectQuery = (
  context: string,
  resource: AdmissionResource,
  name: string,
  resourceVersion: string,
) =>
  queryOptions({
    queryKey: queryKeys.provenanceObject(context, resource, name, resourceVersion),
    queryFn: ({ signal }) =>
      callApi(readConfigurationRoute, { params: { resource, name }, signal }),
    staleTime: Infinity,
    retry: false,
  });

/**
 * GET /api/webhooks/fights: the reconcile fights the dashboard's watches have seen, read again
 * whenever `stamp` changes (the resourceVersions of what the page shows live: a fight is a change
 * of those objects, and the server's watch has taken it in by the time the page's stream brings
 * it, both being told by the same watch).
 */
export const fightsQuery = (context: string, stamp: string) =>
  queryOptions({
    queryKey: queryKeys.fights(context, stamp),
    queryFn: ({ signal }) => callApi(fightsRoute, { signal }),
    staleTime: Infinity,
    retry: false,
    placeholderData: previousOfSameContext(context),
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
    queryFn: ({ signal }) => callApi(webhookDetailsRoute, { params: { resource, name }, signal }),
    staleTime: BACKEND_REREAD_MS,
    refetchInterval: rereadEvery(BACKEND_REREAD_MS),
    retry: false,
  });

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
    queryFn: ({ signal }) => callApi(lintStateRoute, { signal }),
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
    // Without `kinds`: the v1 kinds' AccessMap.
    queryFn: async ({ signal }) =>
      (await callApi(webhookAccessRoute, { input: {}, signal })) as AccessMap,
    staleTime: 60_000,
  });

/** What the identity may do with the historical kinds (one SelfSubjectAccessReview each). */
export const legacyAccessQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.legacyAccess(context),
    queryFn: async ({ signal }) =>
      (await callApi(webhookAccessRoute, {
        input: { kinds: "legacy" },
        signal,
      })) as LegacyAccessMap,
    staleTime: 60_000,
  });

export const kindSchemaQuery = (context: string, resource: AdmissionResource) =>
  queryOptions({
    queryKey: queryKeys.kindSchema(context, resource),
    queryFn: ({ signal }) => callApi(kindSchemaRoute, { params: { resource }, signal }),
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
  // Historical kinds share the routes of the v1 kinds.
  return name
    ? callApi(replaceConfigurationRoute, {
        params: { resource, name },
        input: { object, dryRun },
      })
    : callApi(createConfigurationRoute, { params: { resource }, input: { object, dryRun } });
}

export function deleteConfiguration(
  resource: AdmissionResource | LegacyResource,
  name: string,
  pre: { uid: string; resourceVersion: string },
): Promise<{ deleted: string }> {
  return callApi(deleteConfigurationRoute, { params: { resource, name }, input: pre });
}

/** A failed rename: the error and every step taken (including the rollback). */
export class RenameError extends ApiError<RenameErrorBody> {
  readonly steps: RenameStep[];

  constructor(body: RenameErrorBody) {
    super(body);
    this.steps = body.steps;
  }
}

export async function renameConfiguration(
  resource: WebhookResource | LegacyResource,
  name: string,
  newName: string,
  resourceVersion: string,
): Promise<{ ok: true; steps: RenameStep[] }> {
  try {
    const done = await callApi(renameConfigurationRoute, {
      params: { resource, name },
      input: { newName, resourceVersion },
    });
    return { ok: true, steps: done.steps };
  } catch (e) {
    const body = routeError(renameConfigurationRoute, e);
    if (body) throw new RenameError({ ...body, steps: body.steps ?? [] });
    throw e;
  }
}
