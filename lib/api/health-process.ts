/** /api/health: liveness of the dashboard process itself (not of the cluster). */
import { route } from "./contract";

/** The resources the process holds; counts only, no cluster data. */
export interface ProcessHealth {
  ok: true;
  upstreamWatches: number;
  liveStreams: number;
  /**
   * Connections to apiservers the process holds, by what holds them: kept alive between requests
   * (`idle`, closed after 30 s unused), carrying a request (`inUse`), a request's own (`own`:
   * watches).
   */
  apiserverConnections: { idle: number; inUse: number; own: number };
  rssBytes: number;
}

export const processHealthRoute = route<ProcessHealth>()({ method: "GET", path: "/api/health" });
