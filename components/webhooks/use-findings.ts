"use client";

import { useEffect, useState } from "react";
import type { LintFinding } from "@/lib/admission/lint-types";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";
import type { ConfigLike } from "@/lib/webhooks/summary";
import type * as Findings from "@/lib/webhooks/findings";

type FindingsModule = typeof Findings;

let loaded: FindingsModule | undefined;

/** Runs `fn` once the page has loaded and the browser is idle; returns a cancel function. */
function afterLoadAndIdle(fn: () => void): () => void {
  let cancel = () => {};
  const idle = () => {
    if (typeof window.requestIdleCallback === "function") {
      const id = window.requestIdleCallback(fn, { timeout: 300 });
      cancel = () => window.cancelIdleCallback(id);
    } else {
      const id = window.setTimeout(fn, 0);
      cancel = () => window.clearTimeout(id);
    }
  };
  if (document.readyState === "complete") idle();
  else {
    window.addEventListener("load", idle, { once: true });
    cancel = () => window.removeEventListener("load", idle);
  }
  return () => cancel();
}

/**
 * Lint findings for the cluster's configurations. The linter (and the CEL compiler it pulls in)
 * is loaded after the page has loaded and painted, so it stays out of the list page's first-load
 * JavaScript and off the main thread before the first rows show; once loaded, live changes are
 * linted at once.
 */
export function useFindings(
  mutating: readonly ConfigLike[] | undefined,
  validating: readonly ConfigLike[] | undefined,
): LintFinding[] | undefined {
  const [findings, setFindings] = useState<LintFinding[] | undefined>(undefined);
  useEffect(() => {
    if (!mutating && !validating) return;
    let cancelled = false;
    const lint = (m: FindingsModule) => {
      if (cancelled) return;
      setFindings(
        m.lintConfigurations(
          (mutating ?? []) as V1MutatingWebhookConfiguration[],
          (validating ?? []) as V1ValidatingWebhookConfiguration[],
        ),
      );
    };
    if (loaded) {
      lint(loaded);
      return () => {
        cancelled = true;
      };
    }
    const cancelWait = afterLoadAndIdle(() => {
      void import("@/lib/webhooks/findings").then((m) => {
        loaded = m;
        lint(m);
      });
    });
    return () => {
      cancelled = true;
      cancelWait();
    };
  }, [mutating, validating]);
  return findings;
}
