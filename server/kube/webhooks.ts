import "server-only";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import type { ConfigObject, RenameResult, RenameStep } from "@/lib/queries/webhooks";
import {
  forNewObject,
  KIND_OF,
  WEBHOOK_GROUP,
  WEBHOOK_VERSION,
  type AdmissionResource,
  type WebhookResource,
} from "@/lib/webhooks/kinds";

/**
 * CRUD for the admission kinds the editor writes — webhook configurations, admission policies and
 * their bindings — all cluster-scoped in admissionregistration.k8s.io/v1. Rename is for webhook
 * configurations only (their name decides the call order).
 */

const base = (r: AdmissionResource) => `/apis/${WEBHOOK_GROUP}/${WEBHOOK_VERSION}/${r}`;

/** Writes are strict: an unknown or duplicate field is an error, never silently dropped. */
function writeQuery(dryRun: boolean) {
  return { fieldValidation: "Strict", ...(dryRun ? { dryRun: "All" } : {}) };
}

function withKind(r: AdmissionResource, o: ConfigObject): ConfigObject {
  return { ...o, apiVersion: `${WEBHOOK_GROUP}/${WEBHOOK_VERSION}`, kind: KIND_OF[r] };
}

function badRequest(message: string): KubeApiError {
  return new KubeApiError({ status: 400, reason: "BadRequest", message, cluster: "" });
}

/** Reads one configuration. */
export function getConfiguration(
  client: KubeClient,
  r: AdmissionResource,
  name: string,
  signal?: AbortSignal,
): Promise<ConfigObject> {
  return client.request<ConfigObject>({ path: `${base(r)}/${name}`, signal });
}

/** Creates a configuration (or dry-runs the create: the answer is the object as it would be stored). */
export async function createConfiguration(
  client: KubeClient,
  r: AdmissionResource,
  obj: ConfigObject,
  opts: { dryRun: boolean; signal?: AbortSignal },
): Promise<ConfigObject> {
  if (obj.kind !== undefined && obj.kind !== KIND_OF[r])
    throw badRequest(`kind ${obj.kind} cannot be created as ${r}`);
  return client.request<ConfigObject>({
    method: "POST",
    path: base(r),
    query: writeQuery(opts.dryRun),
    body: obj,
    signal: opts.signal,
  });
}

/**
 * Replaces a configuration. The body must carry metadata.resourceVersion: the apiserver then
 * answers 409 Conflict when the object changed since it was read, so no edit overwrites another
 * silently. A PUT without it would be an unconditional overwrite, which we refuse.
 */
export async function replaceConfiguration(
  client: KubeClient,
  r: AdmissionResource,
  name: string,
  obj: ConfigObject,
  opts: { dryRun: boolean; signal?: AbortSignal },
): Promise<ConfigObject> {
  if (!obj.metadata?.resourceVersion)
    throw badRequest("metadata.resourceVersion is required: it is the precondition of the update");
  if (obj.metadata.name !== undefined && obj.metadata.name !== name)
    throw badRequest(
      `metadata.name ${JSON.stringify(obj.metadata.name)} does not match ${JSON.stringify(name)}: use rename to change the name`,
    );
  if (obj.kind !== undefined && obj.kind !== KIND_OF[r])
    throw badRequest(`kind ${obj.kind} does not match ${r}`);
  return client.request<ConfigObject>({
    method: "PUT",
    path: `${base(r)}/${name}`,
    query: writeQuery(opts.dryRun),
    body: obj,
    signal: opts.signal,
  });
}

/** Deletes a configuration if it is still the version (uid + resourceVersion) the admin saw. */
export async function deleteConfiguration(
  client: KubeClient,
  r: AdmissionResource,
  name: string,
  pre: { uid?: string; resourceVersion?: string },
  signal?: AbortSignal,
): Promise<void> {
  await client.request({
    method: "DELETE",
    path: `${base(r)}/${name}`,
    body: {
      apiVersion: "v1",
      kind: "DeleteOptions",
      preconditions: { uid: pre.uid, resourceVersion: pre.resourceVersion },
    },
    signal,
  });
}

function sameHooks(a: ConfigObject, b: ConfigObject): boolean {
  return JSON.stringify(a.webhooks ?? []) === JSON.stringify(b.webhooks ?? []);
}

/**
 * Renames a configuration (its name decides its place in the call order): create the new name
 * with the same hooks, read it back and compare, then delete the old one with a precondition.
 * Any failure rolls back what was done (the new object is deleted) and the steps say what
 * happened. Between create and delete both exist, so each hook may briefly be called twice.
 */
export async function renameConfiguration(
  client: KubeClient,
  r: WebhookResource,
  name: string,
  newName: string,
  resourceVersion: string,
  signal?: AbortSignal,
): Promise<RenameResult> {
  const steps: RenameStep[] = [];
  const fail = (e: unknown): RenameResult => {
    const k =
      e instanceof KubeApiError
        ? e
        : new KubeApiError({
            status: 500,
            reason: "InternalError",
            message: String(e),
            cluster: "",
          });
    return {
      ok: false,
      steps,
      error: { status: k.status, reason: k.reason, message: k.message },
    };
  };
  let old: ConfigObject;
  try {
    old = await getConfiguration(client, r, name, signal);
    if (old.metadata?.resourceVersion !== resourceVersion)
      throw new KubeApiError({
        status: 409,
        reason: "Conflict",
        message: `${name} changed since you read it (resourceVersion ${resourceVersion} → ${old.metadata?.resourceVersion}); review it and try again`,
        cluster: client.server,
      });
    steps.push({ step: `read ${name} at resourceVersion ${resourceVersion}`, ok: true });
  } catch (e) {
    steps.push({ step: `read ${name}`, ok: false, message: (e as Error).message });
    return fail(e);
  }
  let created: ConfigObject;
  try {
    created = await createConfiguration(client, r, withKind(r, forNewObject(old, newName)), {
      dryRun: false,
      signal,
    });
    steps.push({ step: `created ${newName}`, ok: true });
  } catch (e) {
    steps.push({ step: `create ${newName}`, ok: false, message: (e as Error).message });
    return fail(e);
  }
  const rollback = async (why: unknown): Promise<RenameResult> => {
    try {
      await deleteConfiguration(client, r, newName, { uid: created.metadata?.uid }, signal);
      steps.push({ step: `rolled back: deleted ${newName}; ${name} is unchanged`, ok: true });
    } catch (e) {
      steps.push({
        step: `roll back: delete ${newName}`,
        ok: false,
        message: `${(e as Error).message} — both ${name} and ${newName} exist now; delete ${newName} by hand`,
      });
    }
    return fail(why);
  };
  try {
    const readBack = await getConfiguration(client, r, newName, signal);
    if (!sameHooks(readBack, old))
      throw new KubeApiError({
        status: 500,
        reason: "VerifyFailed",
        message: `${newName} as stored does not carry the same hooks as ${name}`,
        cluster: client.server,
      });
    steps.push({
      step: `verified ${newName} carries the same ${old.webhooks?.length ?? 0} hooks`,
      ok: true,
    });
  } catch (e) {
    steps.push({ step: `verify ${newName}`, ok: false, message: (e as Error).message });
    return rollback(e);
  }
  try {
    await deleteConfiguration(client, r, name, { uid: old.metadata?.uid, resourceVersion }, signal);
    steps.push({ step: `deleted ${name}`, ok: true });
  } catch (e) {
    steps.push({ step: `delete ${name}`, ok: false, message: (e as Error).message });
    return rollback(e);
  }
  return { ok: true, steps, object: created };
}
