import "server-only";
import type { KubeClient } from "./client";
import { isApiserverVerdict, KubeApiError } from "@/lib/k8s/errors";
import type { ConfigObject, RenameResult, RenameStep } from "@/lib/api/webhooks";
import {
  forNewObject,
  KIND_OF,
  WEBHOOK_GROUP,
  WEBHOOK_VERSION,
  type AdmissionResource,
  type WebhookResource,
} from "@/lib/webhooks/resource-kinds";
import { dashboardError } from "@/lib/api/contract";

/**
 * CRUD for the admission kinds the editor writes — webhook configurations, admission policies and
 * their bindings — all cluster-scoped in admissionregistration.k8s.io/v1. Rename is for webhook
 * configurations only (their name decides the call order).
 */

/**
 * Where an admission object lives: the collection path, the apiVersion and kind it is written
 * as, and the field holding its hooks (what a rename must carry over unchanged). The v1 kinds
 * and the historical kinds of the legacy group (server/kube/legacy-admission.ts) share the CRUD
 * below.
 */
export interface ObjectTarget {
  /** The collection path, e.g. /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations. */
  collection: string;
  apiVersion: string;
  kind: string;
  /** The list that holds the hooks: `webhooks`, `initializers`, … */
  hooksField: string;
}

/** The target of one v1 kind the editor writes. */
function v1Target(r: AdmissionResource): ObjectTarget {
  return {
    collection: `/apis/${WEBHOOK_GROUP}/${WEBHOOK_VERSION}/${r}`,
    apiVersion: `${WEBHOOK_GROUP}/${WEBHOOK_VERSION}`,
    kind: KIND_OF[r],
    hooksField: "webhooks",
  };
}

const targetOf = (r: AdmissionResource | ObjectTarget): ObjectTarget =>
  typeof r === "string" ? v1Target(r) : r;

/** Writes are strict: an unknown or duplicate field is an error, never silently dropped. */
function writeQuery(dryRun: boolean) {
  return { fieldValidation: "Strict", ...(dryRun ? { dryRun: "All" } : {}) };
}

function withKind(t: ObjectTarget, o: ConfigObject): ConfigObject {
  return { ...o, apiVersion: t.apiVersion, kind: t.kind };
}

function badRequest(message: string): KubeApiError {
  return new KubeApiError(dashboardError({ status: 400, reason: "BadRequest", message }));
}

/** Reads one configuration. */
export function getConfiguration(
  client: KubeClient,
  r: AdmissionResource | ObjectTarget,
  name: string,
  signal?: AbortSignal,
): Promise<ConfigObject> {
  return client.request<ConfigObject>({
    path: `${targetOf(r).collection}/${name}`,
    signal,
  });
}

/** Creates a configuration (or dry-runs the create: the answer is the object as it would be stored). */
export async function createConfiguration(
  client: KubeClient,
  r: AdmissionResource | ObjectTarget,
  obj: ConfigObject,
  opts: { dryRun: boolean; signal?: AbortSignal },
): Promise<ConfigObject> {
  const t = targetOf(r);
  if (obj.kind !== undefined && obj.kind !== t.kind)
    throw badRequest(`kind ${obj.kind} cannot be created as ${t.kind}`);
  return client.request<ConfigObject>({
    method: "POST",
    path: t.collection,
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
  r: AdmissionResource | ObjectTarget,
  name: string,
  obj: ConfigObject,
  opts: { dryRun: boolean; signal?: AbortSignal },
): Promise<ConfigObject> {
  const t = targetOf(r);
  if (!obj.metadata?.resourceVersion)
    throw badRequest("metadata.resourceVersion is required: it is the precondition of the update");
  if (obj.metadata.name !== undefined && obj.metadata.name !== name)
    throw badRequest(
      `metadata.name ${JSON.stringify(obj.metadata.name)} does not match ${JSON.stringify(name)}: use rename to change the name`,
    );
  if (obj.kind !== undefined && obj.kind !== t.kind)
    throw badRequest(`kind ${obj.kind} does not match ${t.kind}`);
  return client.request<ConfigObject>({
    method: "PUT",
    path: `${t.collection}/${name}`,
    query: writeQuery(opts.dryRun),
    body: obj,
    signal: opts.signal,
  });
}

/** Deletes a configuration if it is still the version (uid + resourceVersion) the admin saw. */
export async function deleteConfiguration(
  client: KubeClient,
  r: AdmissionResource | ObjectTarget,
  name: string,
  pre: { uid?: string; resourceVersion?: string },
  signal?: AbortSignal,
): Promise<void> {
  await client.request({
    method: "DELETE",
    path: `${targetOf(r).collection}/${name}`,
    body: {
      apiVersion: "v1",
      kind: "DeleteOptions",
      preconditions: { uid: pre.uid, resourceVersion: pre.resourceVersion },
    },
    signal,
  });
}

/** Is the configuration `old` gone (its name absent, or held by another object), or kept? */
async function gone(
  client: KubeClient,
  r: AdmissionResource | ObjectTarget,
  name: string,
  old: ConfigObject,
): Promise<"gone" | "kept" | "unknown"> {
  try {
    const now = await getConfiguration(client, r, name);
    return now.metadata?.uid !== old.metadata?.uid ? "gone" : "kept";
  } catch (e) {
    return e instanceof KubeApiError && e.status === 404 ? "gone" : "unknown";
  }
}

function hooksOf(t: ObjectTarget, o: ConfigObject): unknown[] {
  const v = o[t.hooksField];
  return Array.isArray(v) ? v : [];
}

function sameHooks(t: ObjectTarget, a: ConfigObject, b: ConfigObject): boolean {
  return JSON.stringify(hooksOf(t, a)) === JSON.stringify(hooksOf(t, b));
}

/**
 * Renames a configuration (its name decides its place in the call order): create the new name
 * with the same hooks, read it back and compare, then delete the old one with a precondition.
 * Any failure rolls back what was done (the new object is deleted) and the steps say what
 * happened. Between create and delete both exist, so each hook may briefly be called twice.
 * `signal` (the caller going away: a closed tab, a navigation) stops the rename only before
 * anything is written: once the new name exists it runs to its end or rolls back, since stopping
 * there would leave both configurations calling every hook twice.
 */
export async function renameConfiguration(
  client: KubeClient,
  r: WebhookResource | ObjectTarget,
  name: string,
  newName: string,
  resourceVersion: string,
  signal?: AbortSignal,
): Promise<RenameResult> {
  const t = targetOf(r);
  const steps: RenameStep[] = [];
  const fail = (e: unknown): RenameResult => {
    const k =
      e instanceof KubeApiError
        ? e
        : new KubeApiError(
            dashboardError({
              status: 500,
              reason: "InternalError",
              message: String(e),
            }),
          );
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
  if (signal?.aborted) {
    steps.push({ step: `create ${newName}`, ok: false, message: "cancelled; nothing was written" });
    return fail(
      new KubeApiError(dashboardError({ status: 499, reason: "Aborted", message: "cancelled" })),
    );
  }
  let created: ConfigObject;
  try {
    created = await createConfiguration(client, t, withKind(t, forNewObject(old, newName)), {
      dryRun: false,
    });
    steps.push({ step: `created ${newName}`, ok: true });
  } catch (e) {
    const unanswered = !(e instanceof KubeApiError && isApiserverVerdict(e));
    steps.push({
      step: `create ${newName}`,
      ok: false,
      message: unanswered
        ? `${(e as Error).message} — the apiserver did not answer, so ${newName} may exist now beside ${name}: check before retrying`
        : (e as Error).message,
    });
    return fail(e);
  }
  const rollback = async (why: unknown): Promise<RenameResult> => {
    try {
      await deleteConfiguration(client, r, newName, { uid: created.metadata?.uid });
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
    const readBack = await getConfiguration(client, r, newName);
    if (!sameHooks(t, readBack, old))
      throw new KubeApiError({
        status: 500,
        reason: "VerifyFailed",
        message: `${newName} as stored does not carry the same hooks as ${name}`,
        cluster: client.server,
      });
    steps.push({
      step: `verified ${newName} carries the same ${hooksOf(t, old).length} hooks`,
      ok: true,
    });
  } catch (e) {
    steps.push({ step: `verify ${newName}`, ok: false, message: (e as Error).message });
    return rollback(e);
  }
  try {
    await deleteConfiguration(client, r, name, { uid: old.metadata?.uid, resourceVersion });
    steps.push({ step: `deleted ${name}`, ok: true });
  } catch (e) {
    // Without an answer (a timeout, a dropped connection) the delete may have happened: rolling
    // back then would delete the only copy left. Look before choosing.
    const outcome =
      e instanceof KubeApiError && isApiserverVerdict(e)
        ? "kept"
        : await gone(client, r, name, old);
    if (outcome === "gone")
      steps.push({ step: `deleted ${name} (confirmed by reading it back)`, ok: true });
    else if (outcome === "unknown") {
      steps.push({
        step: `delete ${name}`,
        ok: false,
        message: `${(e as Error).message} — whether ${name} was deleted is unknown, so nothing was rolled back: ${newName} exists; check ${name} before retrying`,
      });
      return fail(e);
    } else {
      steps.push({ step: `delete ${name}`, ok: false, message: (e as Error).message });
      return rollback(e);
    }
  }
  return { ok: true, steps, object: created };
}
