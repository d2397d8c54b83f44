/** /api/overview: the cluster's version and the admission APIs it serves. */
import { route } from "./contract";

export interface ServedVersion {
  /** admissionregistration.k8s.io, or the configured legacy group (lib/k8s/legacy-group.ts). */
  group: string;
  version: string;
  preferred: boolean;
  resources: Array<{ name: string; kind: string; namespaced: boolean; verbs: string[] }>;
}

/** The apiserver's /version, as far as the dashboard reads it. */
export interface ServerVersion {
  gitVersion: string;
  platform?: string;
  goVersion?: string;
}

export interface OverviewData {
  context: string;
  server: string;
  version: ServerVersion;
  apis: ServedVersion[];
}

export const overviewRoute = route<OverviewData>()({ method: "GET", path: "/api/overview" });
