import "server-only";
import { z } from "zod";
import { json } from "./respond";
import { readJson } from "./body";
import type { KubeClient } from "@/server/kube/client";
import { renameConfiguration, type ObjectTarget } from "@/server/kube/webhooks";
import { objectName } from "@/server/kube/webhook-input";
import type { WebhookResource } from "@/lib/webhooks/kinds";

const body = z.object({ newName: objectName, resourceVersion: z.string().min(1) });

/**
 * The safe-rename route's work (create the new name, verify, delete the old; rolled back on any
 * failure): the steps on success, the error with every step taken otherwise.
 */
export async function renameResponse(
  request: Request,
  client: KubeClient,
  r: WebhookResource | ObjectTarget,
  name: string,
): Promise<Response> {
  const input = body.parse(await readJson(request));
  const result = await renameConfiguration(
    client,
    r,
    objectName.parse(name),
    input.newName,
    input.resourceVersion,
    request.signal,
  );
  if (result.ok) return json(result);
  const e = result.error ?? { status: 500, reason: "InternalError", message: "rename failed" };
  return json(
    { ...e, cluster: "", steps: result.steps },
    { status: e.status >= 400 ? e.status : 500 },
  );
}
