import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { webhookAccess } from "@/server/kube/access";

export const dynamic = "force-dynamic";

/** What the request's identity may do with webhook configurations (SelfSubjectAccessReview). */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => json(await webhookAccess(clientFor(request), request.signal)));
}
