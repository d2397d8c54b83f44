/**
 * Which of the dashboard's two modes a process runs in, from PORTCULLIS_MODE. Pure.
 * - `local` (default): the kubeconfig's credentials, loopback only, each tab names its context;
 * - `shared`: in the cluster; every admin signs in and every API call runs as that admin.
 */
export type DashboardMode = "local" | "shared";

/** The one context a shared-mode dashboard serves: the signed-in user's view of its cluster. */
export const SHARED_CONTEXT = "shared";

/** The mode named by `value` (PORTCULLIS_MODE); throws a plain message for anything else. */
export function dashboardMode(value: string | undefined): DashboardMode {
  if (value === undefined || value === "" || value === "local") return "local";
  if (value === "shared") return "shared";
  throw new Error(`PORTCULLIS_MODE must be "local" or "shared", not "${value.slice(0, 40)}"`);
}
