import "server-only";
import { z } from "zod";
import {
  isAdmissionResource,
  isWebhookResource,
  type AdmissionResource,
  type WebhookResource,
} from "@/lib/webhooks/resource-kinds";
import { KubeApiError } from "@/lib/k8s/errors";
import { isLegacyResource } from "@/lib/k8s/legacy-kinds";
import { legacyTarget } from "./legacy-admission";
import type { ObjectTarget } from "./webhooks";

/** A DNS-subdomain name as the apiserver accepts for cluster-scoped objects. */
export const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS subdomain name");

/** The JSON object the editor sends; the apiserver is the judge of its contents. */
export const objectBody = z
  .object({ metadata: z.record(z.string(), z.unknown()).optional() })
  .passthrough();

export const writeBody = z.object({ object: objectBody, dryRun: z.boolean().default(false) });

function notEdited(s: string): KubeApiError {
  return new KubeApiError({
    status: 404,
    reason: "NotFound",
    message: `the dashboard does not edit ${s}`,
    cluster: "",
  });
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
