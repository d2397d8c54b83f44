/** /api/outside-api: the hooks and policies the apiserver runs that no API object holds. */
import type { OutsideApiReport } from "@/lib/admission/outside-api/infer";
import { route } from "./contract";

/** What the apiserver's metrics and the stored decisions tell of admission configured outside the API. */
export interface OutsideApiResponse extends OutsideApiReport {
  /** "N hooks or policies are configured outside the API." (or that there are none). */
  sentence: string;
  /** Why the apiserver's metrics could not be read (e.g. RBAC on /metrics), if so. */
  metricsError?: string;
  /** Why the stored decisions could not be read, if so. */
  decisionsError?: string;
  /**
   * Whether the dashboard reads the manifest directories (PORTCULLIS_ADMISSION_MANIFESTS): their
   * objects are then shown whole, and only what they lack is listed here.
   */
  directoriesRead: boolean;
}

export const outsideApiRoute = route<OutsideApiResponse>()({
  method: "GET",
  path: "/api/outside-api",
});
