"use client";

import { useEffect, useState } from "react";
import type { LintFinding } from "@/lib/admission/lint-types";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";
import type { ConfigLike } from "@/lib/webhooks/summary";

/**
 * Lint findings for the cluster's configurations. The linter (and the CEL compiler it pulls in)
 * is loaded after first paint so it stays out of the list page's first-load JavaScript.
 */
export function useFindings(
  mutating: readonly ConfigLike[] | undefined,
  validating: readonly ConfigLike[] | undefined,
): LintFinding[] | undefined {
  const [findings, setFindings] = useState<LintFinding[] | undefined>(undefined);
  useEffect(() => {
    if (!mutating && !validating) return;
    let cancelled = false;
    void import("@/lib/webhooks/findings").then((m) => {
      if (cancelled) return;
      setFindings(
        m.lintConfigurations(
          (mutating ?? []) as V1MutatingWebhookConfiguration[],
          (validating ?? []) as V1ValidatingWebhookConfiguration[],
        ),
      );
    });
    return () => {
      cancelled = true;
    };
  }, [mutating, validating]);
  return findings;
}
