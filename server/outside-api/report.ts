import "server-only";
import {
  inferOutsideApi,
  knownNamesOf,
  outsideApiSentence,
  type DecisionSighting,
  type KnownNames,
} from "@/lib/admission/outside-api/infer";
import type { OutsideApiResponse } from "@/lib/api/outside-api";
import { servedKinds } from "@/lib/k8s/served-kinds";
import { decisionStore } from "@/server/decisions/instance";
import { admissionScrapes } from "@/server/health/scraper";
import type { KubeClient } from "@/server/kube/client";
import { admissionApis } from "@/server/kube/discovery";
import { listCollection } from "@/server/kube/list-collection";

type Lists = Parameters<typeof knownNamesOf>[0];
type ListName = keyof Lists;

const RESOURCES: ReadonlyArray<readonly [string, ListName]> = [
  ["mutatingwebhookconfigurations", "mutatingWebhookConfigurations"],
  ["validatingwebhookconfigurations", "validatingWebhookConfigurations"],
  ["mutatingadmissionpolicies", "mutatingAdmissionPolicies"],
  ["validatingadmissionpolicies", "validatingAdmissionPolicies"],
];

/** The names of the API's webhook configurations and policies, as `client` can list them. */
async function apiNames(client: KubeClient, signal: AbortSignal): Promise<KnownNames> {
  const served = servedKinds(await admissionApis(client, signal));
  const lists: Record<string, unknown[]> = {};
  await Promise.all(
    RESOURCES.map(async ([resource, field]) => {
      const ref = served.find((k) => k.known.resource === resource)?.readAt;
      if (!ref) return;
      lists[field] = (await listCollection(client, ref, signal)).items;
    }),
  );
  return knownNamesOf(lists as Lists);
}

const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** How far back stored decisions are read: what the store retains, at most a week. */
const DECISIONS_WINDOW_MS = 7 * 24 * 3600_000;
/** One count of the stored decisions serves every request for this long (it reads them all). */
const SHARED_MS = 5_000;

let shared: { until: number; result: Promise<DecisionSighting[]> } | undefined;

/** The stored decisions counted per hook over the window, shared a few seconds. */
function decisionSightings(now: number): Promise<DecisionSighting[]> {
  if (shared && shared.until > now) return shared.result;
  const result = decisionStore().then((store) =>
    store.sightings({ outcome: [], from: now - DECISIONS_WINDOW_MS, to: now + 1 }),
  );
  const entry = { until: now + SHARED_MS, result };
  shared = entry;
  result.catch(() => {
    if (shared === entry) shared = undefined;
  });
  return result;
}

/**
 * The hooks and policies `context`'s apiserver runs that no API object holds: from its metrics
 * (read with `metricsClient`, which may differ from the user's client in shared mode), the stored
 * decisions, and the names the user can list. `files` are the static objects read from the
 * manifest directories, when the dashboard was given them: those are shown as they are, not
 * inferred. A source that cannot be read is said, and the rest still used.
 */
export async function outsideApiReport(
  context: string,
  client: KubeClient,
  metricsClient: () => Promise<KubeClient>,
  signal: AbortSignal,
  files?: KnownNames,
): Promise<OutsideApiResponse> {
  const [scrapes, decisions, api] = await Promise.all([
    metricsClient()
      .then((c) => admissionScrapes(context, c))
      .then(
        (s) => ({ value: s }),
        (e: unknown) => ({ error: errorMessage(e) }),
      ),
    decisionSightings(Date.now()).then(
      (s) => ({ value: s }),
      (e: unknown) => ({ error: errorMessage(e) }),
    ),
    apiNames(client, signal),
  ]);
  const report = inferOutsideApi({
    scrapes: "value" in scrapes ? scrapes.value : [],
    decisions: "value" in decisions ? decisions.value : [],
    api,
    ...(files && { files }),
  });
  return {
    ...report,
    sentence: outsideApiSentence(report),
    directoriesRead: files !== undefined,
    ...("error" in scrapes && { metricsError: scrapes.error }),
    ...("error" in decisions && { decisionsError: decisions.error }),
  };
}
