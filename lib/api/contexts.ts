/** /api/contexts: the kubeconfig's contexts, and where a new tab starts. */
import { z } from "zod";
import { route } from "./contract";

/** A kubeconfig context as the dashboard shows it (server/kube/config.ts). */
export interface ContextSummary {
  name: string;
  cluster: string;
  server: string;
  user: string;
  namespace?: string;
}

export interface ContextsData {
  /** Where a new tab starts (the remembered choice, else the default). */
  start: string;
  contexts: ContextSummary[];
}

export const listContextsRoute = route<ContextsData>()({ method: "GET", path: "/api/contexts" });

/** Remembers where new tabs start (a cookie); open tabs keep the context they name. */
export const rememberContextRoute = route<{ start: string }>()({
  method: "POST",
  path: "/api/contexts",
  input: z.object({ context: z.string().min(1).max(253) }),
});
