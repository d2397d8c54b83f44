import "server-only";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import { kindJsonSchema, type JsonSchema, type OpenApiV3Doc } from "@/lib/k8s/openapi-schema";

const TTL_MS = 5 * 60_000;
const cache = new Map<string, { at: number; doc: OpenApiV3Doc }>();

/** The cluster's own OpenAPI v3 document for a group/version (cached briefly per server). */
async function openApiV3(
  client: KubeClient,
  group: string,
  version: string,
  signal?: AbortSignal,
): Promise<OpenApiV3Doc> {
  const key = `${client.server}\u0000${group}/${version}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.doc;
  const doc = await client.request<OpenApiV3Doc>({
    path: `/openapi/v3/apis/${group}/${version}`,
    signal,
  });
  cache.set(key, { at: Date.now(), doc });
  return doc;
}

/** A JSON Schema for one kind, from the cluster's OpenAPI v3; 404 when the cluster has none. */
export async function kindSchema(
  client: KubeClient,
  group: string,
  version: string,
  kind: string,
  signal?: AbortSignal,
): Promise<JsonSchema> {
  const schema = kindJsonSchema(
    await openApiV3(client, group, version, signal),
    group,
    version,
    kind,
  );
  if (!schema)
    throw new KubeApiError({
      status: 404,
      reason: "NotFound",
      message: `the cluster's OpenAPI v3 for ${group}/${version} does not describe ${kind}`,
      cluster: client.server,
    });
  return schema;
}
