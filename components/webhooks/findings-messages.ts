import type { LintFinding } from "@/lib/admission/lint-types";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";

/** What the list posts to its lint worker. */
export interface FindingsRequest {
  id: number;
  mutating: V1MutatingWebhookConfiguration[];
  validating: V1ValidatingWebhookConfiguration[];
}

/** The worker's answer to request `id`. */
export type FindingsReply = { id: number } & (
  { findings: LintFinding[]; error?: undefined } | { error: string; findings?: undefined }
);
