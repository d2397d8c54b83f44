/** Lint findings grouped by the hook (or configuration) they are about. Pure. */
import { lint } from "@/lib/admission/lint";
import type { LintFinding } from "@/lib/admission/lint-types";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";

/** Offline lint of the cluster's webhook configurations. */
export function lintConfigurations(
  mutating: readonly V1MutatingWebhookConfiguration[],
  validating: readonly V1ValidatingWebhookConfiguration[],
): LintFinding[] {
  return lint(
    {
      snapshot: {
        mutatingWebhookConfigurations: mutating,
        validatingWebhookConfigurations: validating,
      },
    },
    { offlineOnly: true },
  );
}
