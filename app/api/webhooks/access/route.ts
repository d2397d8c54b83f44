import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { admissionAccess } from "@/server/kube/access";

export const dynamic = "force-dynamic";

/** What the request's identity may do with admission configurations and policies (SelfSubjectAccessReview). */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => json(await admissionAccess(clientFor(request), request.signal)));
}
