import "server-only";
import { setMaxListeners } from "node:events";
import { recogniseOwnership, type OwnershipInput } from "@/lib/admission/engines/ownership";
import { ownedPolicies } from "@/lib/engines/lint";
import type { LintEngineState, LintStateData } from "@/lib/api/webhooks";
import type { KubeClient } from "@/server/kube/client";
import {
  readAdmissionObjects,
  readBackendState,
  readDiscovery,
  readNamespaces,
} from "@/server/kube/admission-state";
import { readEnginePolicies } from "./read";

/**
 * The engines' part of the lint state: their policies and the admission policies and bindings
 * an engine owns. Undefined when the cluster serves no engine kind and no admission policy
 * carries an engine's marks (the lint then runs as without engines).
 */
function engineLintState(
  objects: OwnershipInput,
  served: number,
  sources: LintEngineState["sources"],
): LintEngineState | undefined {
  const { lists, count } = ownedPolicies(objects, recogniseOwnership(objects, sources));
  if (served === 0 && count === 0) return undefined;
  return { ...lists, sources };
}

/**
 * What the lint checks that need live state read (namespaces, discovery, the webhooks' services,
 * endpoint slices and pods, the server version, the policy engines' policies and the admission
 * policies they own), as the identity of `client`.
 */
export async function readLintState(opts: {
  client: KubeClient;
  context: string;
  signal?: AbortSignal;
}): Promise<LintStateData> {
  const { client, context, signal } = opts;
  // One signal serves discovery and every read in parallel: more than the default ten.
  if (signal) setMaxListeners(64, signal);
  const notices: string[] = [];
  const [discovery, namespaces, engines] = await Promise.all([
    readDiscovery(client, notices, signal),
    readNamespaces(client, signal),
    readEnginePolicies({ client, context, notices, signal }),
  ]);
  const objects = await readAdmissionObjects(client, discovery, notices, signal);
  const backends = await readBackendState(
    client,
    [...objects.mutatingWebhookConfigurations, ...objects.validatingWebhookConfigurations],
    notices,
    signal,
  );
  const engineState = engineLintState(objects, engines.served.length, engines.sources);
  return {
    namespaces,
    discovery,
    ...backends,
    ...(engineState ? { engines: engineState } : {}),
    notices,
  };
}
