import "server-only";
import {
  isAdmissionResource,
  isWebhookResource,
  type AdmissionResource,
  type WebhookResource,
} from "@/lib/webhooks/resource-kinds";
import { KubeApiError } from "@/lib/k8s/errors";
import { dashboardError } from "@/lib/api/contract";
import { isLegacyResource } from "@/lib/k8s/legacy-kinds";
import { legacyTarget } from "./legacy-admission";
import type { ObjectTarget } from "./webhooks";

function notEdited(s: string): KubeApiError {
  return new KubeApiError(
    dashboardError({
      status: 404,
      reason: "NotFound",
      message: `the dashboard does not edit ${s}`,
    }),
  );
}

/** Route param → resource; 404 for anything but the two webhook configuration kinds. */
export function webhookResource(s: string): WebhookResource {
  if (!isWebhookResource(s)) throw notEdited(s);
  return s;
}

/** Route param → resource; 404 for anything but the admission kinds the editor writes. */
export function admissionResource(s: string): AdmissionResource {
  if (!isAdmissionResource(s)) throw notEdited(s);
  return s;
}

/**
 * Route param → where the object is written: a v1 admission kind, or a historical kind
 * (InitializerConfiguration, ExternalAdmissionHookConfiguration) in the group that serves it.
 */
export function writableTarget(s: string): AdmissionResource | ObjectTarget {
  return isLegacyResource(s) ? legacyTarget(s) : admissionResource(s);
}

/** Route param → a kind whose configurations are renamed to move them in the call order. */
export function renamableTarget(s: string): WebhookResource | ObjectTarget {
  return isLegacyResource(s) ? legacyTarget(s) : webhookResource(s);
}
