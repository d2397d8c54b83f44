import "server-only";
import type { z } from "zod";
import { NAME, type PickData, type pickInput } from "@/lib/api/predict";
import { parseRef, collectionPath } from "@/lib/k8s/resources";
import { KubeApiError } from "@/lib/k8s/errors";
import type { KubeClient } from "@/server/kube/client";
import { dashboardError } from "@/lib/api/contract";

const MAX_NAMES = 500;

/**
 * Names of a resource's objects (first 500, in the namespace when given) or one object, read as
 * the client's identity: what the admin picks a request's object from. managedFields are dropped.
 */
export async function pick(
  client: KubeClient,
  input: z.infer<typeof pickInput>,
  signal?: AbortSignal,
): Promise<PickData> {
  const ref = parseRef(input.resource);
  if (
    !ref ||
    !NAME.test(ref.version) ||
    !NAME.test(ref.resource) ||
    (ref.group && !NAME.test(ref.group))
  )
    throw new KubeApiError(
      dashboardError({
        status: 400,
        reason: "BadRequest",
        message: `resource "${input.resource.slice(0, 100)}": expected GROUP/VERSION/RESOURCE (core/v1/pods)`,
      }),
    );
  const root = ref.group === "" ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = input.namespace ? `/namespaces/${input.namespace}` : "";
  if (input.name === undefined) {
    const list = await client.request<{
      items?: Array<{ metadata?: { name?: string; namespace?: string } }>;
      metadata?: { continue?: string };
    }>({
      path: input.namespace ? `${root}${ns}/${ref.resource}` : collectionPath(ref),
      query: { limit: MAX_NAMES },
      signal,
    });
    return {
      kind: "names",
      names: (list.items ?? []).map((i) => i.metadata?.name ?? "").filter((n) => n !== ""),
      truncated: !!list.metadata?.continue,
    };
  }
  const object = await client.request<Record<string, unknown>>({
    path: `${root}${ns}/${ref.resource}/${encodeURIComponent(input.name)}`,
    signal,
  });
  const meta = object.metadata;
  if (meta && typeof meta === "object") delete (meta as Record<string, unknown>).managedFields;
  return { kind: "object", object };
}
