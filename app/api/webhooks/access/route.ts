import { z } from "zod";
import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { admissionAccess, legacyAdmissionAccess } from "@/server/kube/access";

export const dynamic = "force-dynamic";

const kindsParam = z.enum(["current", "legacy"]).default("current");

/**
 * What the request's identity may do with admission configurations and policies
 * (SelfSubjectAccessReview); `?kinds=legacy`: with the historical kinds instead.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const kinds = kindsParam.parse(new URL(request.url).searchParams.get("kinds") ?? undefined);
    const client = clientFor(request);
    return json(
      kinds === "legacy"
        ? await legacyAdmissionAccess(client, request.signal)
        : await admissionAccess(client, request.signal),
    );
  });
}
