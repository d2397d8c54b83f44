import "server-only";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import type { TryResult } from "@/lib/policies/try-model";
import { groupVersionPath, resourceForKind } from "./resolve-kind";
import { dashboardError } from "@/lib/api/contract";

interface AnyObject {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { namespace?: unknown; [k: string]: unknown };
  [k: string]: unknown;
}

function badRequest(message: string): KubeApiError {
  return new KubeApiError(dashboardError({ status: 400, reason: "BadRequest", message }));
}

/**
 * Sends a create of `obj` through the apiserver with `dryRun=All`, as the request's identity:
 * every admission plugin, webhook and policy runs, nothing is stored. A refusal is the answer,
 * not an error: it comes back with the apiserver's status and message.
 */
export async function dryRunCreate(
  client: KubeClient,
  obj: AnyObject,
  signal?: AbortSignal,
): Promise<TryResult> {
  if (typeof obj.apiVersion !== "string" || typeof obj.kind !== "string")
    throw badRequest("the object needs apiVersion and kind");
  const res = await resourceForKind(client, obj.apiVersion, obj.kind, new Map(), signal);
  if (!res) throw badRequest(`the cluster does not serve ${obj.kind} in ${obj.apiVersion}`);
  if (!res.verbs.includes("create")) throw badRequest(`${res.name} cannot be created`);
  const ns = res.namespaced
    ? typeof obj.metadata?.namespace === "string" && obj.metadata.namespace
      ? obj.metadata.namespace
      : "default"
    : undefined;
  const path =
    groupVersionPath(obj.apiVersion) +
    (ns ? `/namespaces/${encodeURIComponent(ns)}` : "") +
    `/${res.name}`;
  try {
    const { body, warnings } = await client.requestWithWarnings<unknown>({
      method: "POST",
      path,
      query: { dryRun: "All", fieldValidation: "Strict" },
      body: obj,
      signal,
    });
    return { allowed: true, warnings, object: body, resource: res.name, namespace: ns };
  } catch (e) {
    if (e instanceof KubeApiError && e.status >= 400 && e.status < 500)
      return { allowed: false, warnings: [], error: e.toJSON(), resource: res.name, namespace: ns };
    throw e;
  }
}
