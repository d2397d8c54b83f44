/**
 * `--context NAME`: live state read through server/kube — the kubeconfig, the one door to a
 * cluster (identity, KubeApiError) and the one reader of admission state the dashboard uses too.
 * Loaded with a dynamic import so commands that stay offline never pay for @kubernetes/client-node.
 */
import type { JsonObject } from "@/lib/admission/validate/json";
import { configurationsOf, type SnapshotLists } from "@/lib/admission/model/snapshot";
import { defaultKubeconfigPaths, loadKubeConfig, kubeConfigFor } from "@/server/kube/config";
import { KubeClient } from "@/server/kube/client";
import {
  readAdmissionState,
  readBackendState,
  type AdmissionState,
  type BackendState,
} from "@/server/kube/admission-state";
import { KubeApiError } from "@/lib/k8s/errors";
import { listCollection } from "@/server/kube/list-collection";
import { engineCollections } from "@/lib/admission/engines/sources";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import { InputError } from "./errors";
import type { Notice } from "./snapshot";

/** A connection to one context. */
export interface Live {
  context: string;
  client: KubeClient;
}

/** Opens `context` from the kubeconfig files (`kubeconfig`, else KUBECONFIG, else ~/.kube/config). */
export function connect(context: string, kubeconfig: string | undefined): Live {
  const paths = kubeconfig !== undefined ? [kubeconfig] : defaultKubeconfigPaths();
  let names: string[];
  try {
    names = loadKubeConfig(paths)
      .getContexts()
      .map((c) => c.name);
  } catch (e) {
    throw new InputError(e instanceof Error ? e.message : String(e));
  }
  if (!names.includes(context))
    throw new InputError(
      `context "${context}" is not in the kubeconfig (${paths.join(", ") || "~/.kube/config"}); contexts: ${names.join(", ") || "none"}`,
    );
  try {
    return { context, client: new KubeClient(context, kubeConfigFor(context, paths)) };
  } catch (e) {
    throw new InputError(e instanceof Error ? e.message : String(e));
  }
}

/** A KubeApiError as one line for the user, naming the context. */
function liveError(live: Live, what: string, e: unknown): InputError {
  const msg =
    e instanceof KubeApiError
      ? `${e.message} (${e.status} ${e.reason})`
      : e instanceof Error
        ? e.message
        : String(e);
  return new InputError(`context ${live.context}: cannot read ${what}: ${msg}`);
}

/**
 * The cluster's admission state (server/kube/admission-state): its configurations unless
 * `configurations` is false, namespaces, discovery, params and the context's identity. What could
 * not be read is added to `notices`.
 */
export async function readLiveState(
  live: Live,
  notices: Notice[],
  opts: {
    configurations: boolean;
    policies?: Pick<SnapshotLists, "validatingAdmissionPolicies" | "mutatingAdmissionPolicies">;
  },
): Promise<AdmissionState> {
  let state: AdmissionState;
  try {
    state = await readAdmissionState(live.client, opts);
  } catch (e) {
    throw liveError(live, "the admission state", e);
  }
  for (const message of state.notices) notices.push({ at: `cluster ${live.context}`, message });
  return state;
}

/** The admission configurations the cluster stores, each with apiVersion and kind. */
export async function readConfigurations(live: Live, notices: Notice[]): Promise<JsonObject[]> {
  const state = await readLiveState(live, notices, { configurations: true });
  return configurationsOf(state.snapshot) as JsonObject[];
}

/** The backends of the service-backed webhooks (lint L1, L6, L7) and the server's minor version. */
export async function readBackends(
  live: Live,
  configurations: Parameters<typeof readBackendState>[1],
  notices: Notice[],
): Promise<BackendState> {
  const found: string[] = [];
  try {
    const state = await readBackendState(live.client, configurations, found);
    for (const message of found) notices.push({ at: `cluster ${live.context}`, message });
    return state;
  } catch (e) {
    throw liveError(live, "the webhooks' backends", e);
  }
}

/**
 * The policy engines' own objects the cluster serves (ConstraintTemplates, Constraints, Kyverno
 * and Kubewarden policies), each with apiVersion and kind; none on a cluster without engines. A
 * collection that cannot be listed (403) is a notice, not an error.
 */
export async function readEngineObjects(
  live: Live,
  discovery: readonly DiscoveryResource[],
  notices: Notice[],
): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  for (const c of engineCollections(discovery)) {
    try {
      const list = await listCollection(live.client, c);
      const apiVersion = c.group ? `${c.group}/${c.version}` : c.version;
      for (const item of list.items) out.push({ ...item, apiVersion, kind: c.kind });
    } catch (e) {
      if (e instanceof KubeApiError && (e.status === 403 || e.status === 404)) {
        notices.push({
          at: `cluster ${live.context}`,
          message: `cannot list ${c.resource}.${c.group} (${e.status}): linted without them`,
        });
        continue;
      }
      throw liveError(live, `${c.resource}.${c.group}`, e);
    }
  }
  return out;
}
