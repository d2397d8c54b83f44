import { handle, respond } from "@/server/http/respond";
import {
  deleteConfigurationRoute,
  objectName,
  readConfigurationRoute,
  replaceConfigurationRoute,
} from "@/lib/api/webhooks";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import {
  deleteConfiguration,
  getConfiguration,
  replaceConfiguration,
} from "@/server/kube/webhooks";
import { writableTarget } from "@/server/kube/webhook-input";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ resource: string; name: string }> };

async function target(params: Params["params"]) {
  const p = await params;
  return { r: writableTarget(p.resource), name: objectName.parse(p.name) };
}

/** Reads one configuration as the request's identity. */
export async function GET(request: Request, { params }: Params): Promise<Response> {
  return handle(async () => {
    const { r, name } = await target(params);
    return respond(
      readConfigurationRoute,
      await getConfiguration(clientFor(request), r, name, request.signal),
    );
  });
}

/** Replaces it with resourceVersion precondition and strict field validation (or dry-runs that). */
export async function PUT(request: Request, { params }: Params): Promise<Response> {
  return handle(async () => {
    const { r, name } = await target(params);
    const body = replaceConfigurationRoute.input.parse(await readJson(request));
    return respond(
      replaceConfigurationRoute,
      await replaceConfiguration(clientFor(request), r, name, body.object, {
        dryRun: body.dryRun,
        signal: request.signal,
      }),
    );
  });
}

/** Deletes it if it is still the version the admin confirmed. */
export async function DELETE(request: Request, { params }: Params): Promise<Response> {
  return handle(async () => {
    const { r, name } = await target(params);
    const pre = deleteConfigurationRoute.input.parse(await readJson(request));
    await deleteConfiguration(clientFor(request), r, name, pre, request.signal);
    return respond(deleteConfigurationRoute, { deleted: name });
  });
}
