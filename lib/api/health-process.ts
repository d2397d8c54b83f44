/** /api/health: liveness of the dashboard process itself (not of the cluster). */
import { route } from "./contract";

/** The resources the process holds; counts only, no cluster data. */
export interface ProcessHealth {
  ok: true;
  upstreamWatches: number;
  liveStreams: number;
  rssBytes: number;
}

export const processHealthRoute = route<ProcessHealth>()({ method: "GET", path: "/api/health" });
