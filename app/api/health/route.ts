import { json } from "@/server/http/respond";

export const dynamic = "force-dynamic";

/** Liveness of the dashboard process itself (not of the cluster). */
export function GET(): Response {
  return json({ ok: true });
}
