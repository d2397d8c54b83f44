/** The minor the webhook pages' lint assumes; light, so a page names it without loading lint. */
import {
  minorOfVersion,
  NEWEST_KUBERNETES_MINOR,
  type AssumedMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type { LintStateData } from "@/lib/api/webhooks";

/**
 * The Kubernetes minor the checks assume: the cluster's (its /version, in the live state; the
 * nearest modelled minor for one Portcullis does not model), else the newest — the offline checks
 * before the live state is read, or a cluster whose version names none.
 */
export function lintMinor(live?: Pick<LintStateData, "serverMinor">): AssumedMinor {
  const m =
    live?.serverMinor !== undefined
      ? minorOfVersion({ major: "1", minor: String(live.serverMinor) })
      : undefined;
  return m ?? { minor: NEWEST_KUBERNETES_MINOR, source: "default" };
}
