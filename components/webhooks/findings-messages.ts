import type { LintFinding } from "@/lib/admission/lint/lint-types";
import type { LintStateData } from "@/lib/api/webhooks";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";

/**
 * What the list posts to its lint worker. The live state (which can hold every Pod of the
 * cluster) is posted only when it changed: `live` replaces the worker's copy, `keepLive` reuses
 * it, neither lints offline.
 */
export interface FindingsRequest {
  id: number;
  mutating: V1MutatingWebhookConfiguration[];
  validating: V1ValidatingWebhookConfiguration[];
  live?: LintStateData;
  keepLive?: boolean;
}

/** The worker's answer to request `id`. */
export type FindingsReply = { id: number } & (
  { findings: LintFinding[]; error?: undefined } | { error: string; findings?: undefined }
);
