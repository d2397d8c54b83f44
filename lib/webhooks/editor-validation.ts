/**
 * What the editor's as-you-type validation is told: the document's target and the Kubernetes
 * minor of the cluster being edited (its /version, as the top bar reads it), so the problems list
 * shows what that apiserver would answer, not what the newest would.
 */
import {
  minorOfVersion,
  NEWEST_KUBERNETES_MINOR,
  type AssumedMinor,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type { ExpectedTarget } from "@/lib/admission/validate/validate-document";
import { WEBHOOK_GROUP, WEBHOOK_VERSION } from "./resource-kinds";

/**
 * The minor the editor validates as: the cluster's from its /version (the nearest modelled one for
 * a minor Portcullis does not model), else the newest while the version is unread or names none.
 */
export function editorMinor(
  version:
    { readonly gitVersion?: string; readonly major?: string; readonly minor?: string } | undefined,
): AssumedMinor {
  return (
    (version && minorOfVersion(version)) ?? { minor: NEWEST_KUBERNETES_MINOR, source: "default" }
  );
}

/** The options of validateDocument for the editor's text. */
export function editorValidationOptions(e: {
  kind: string;
  /** Set when editing a stored object (an update: ratcheting and the name must match). */
  name: string | undefined;
  /** The stored object's text, when editing one. */
  base: string;
  minor: KubernetesMinor;
}): { oldText?: string; expected: ExpectedTarget; minor: KubernetesMinor } {
  // What Apply writes to: a document naming another apiVersion, kind or (for an update) name is
  // refused with 400, so it is marked here.
  const expected: ExpectedTarget = {
    apiVersion: `${WEBHOOK_GROUP}/${WEBHOOK_VERSION}`,
    kind: e.kind,
    ...(e.name === undefined ? {} : { name: e.name }),
  };
  return e.name === undefined
    ? { expected, minor: e.minor }
    : { oldText: e.base, expected, minor: e.minor };
}
