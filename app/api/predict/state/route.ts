import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { readAdmissionState } from "@/server/kube/admission-state";
import type { PredictStateData } from "@/lib/queries/predict";

export const dynamic = "force-dynamic";

/** The admission state the predict page predicts from, read as the request's identity. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const client = clientFor(request);
    const state = await readAdmissionState(client, { signal: request.signal });
    const body: PredictStateData = { context: client.context, ...state };
    return json(body);
  });
}
