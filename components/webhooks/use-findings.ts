"use client";

import { useEffect, useState } from "react";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";
import type { ConfigLike } from "@/lib/webhooks/summary";
import type { LintStateData } from "@/lib/api/webhooks";
import type { FindingsReply, FindingsRequest } from "./findings-messages";

type Lint = (
  mutating: V1MutatingWebhookConfiguration[],
  validating: V1ValidatingWebhookConfiguration[],
  live: LintStateData | undefined,
) => Promise<LintFinding[]>;

let linter: Lint | undefined;

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

/** The linter on the main thread: where workers cannot start, or when the worker fails. */
const inPage: Lint = async (mutating, validating, live) =>
  (await import("@/lib/webhooks/findings")).lintConfigurations(mutating, validating, live);

/**
 * The linter in a worker of its own (one per tab), so a lint pass over thousands of hooks never
 * blocks the page; falls back to the page's thread when the worker cannot start or fails.
 */
function startLinter(): Lint {
  let worker: Worker;
  try {
    worker = new Worker(new URL("./findings.worker.ts", import.meta.url), { type: "module" });
  } catch {
    return inPage;
  }
  let next = 0;
  let broken = false;
  const pending = new Map<number, (reply: FindingsReply | undefined) => void>();
  worker.onmessage = (e: MessageEvent<FindingsReply>) => {
    pending.get(e.data.id)?.(e.data);
    pending.delete(e.data.id);
  };
  worker.onerror = () => {
    broken = true;
    for (const settle of pending.values()) settle(undefined);
    pending.clear();
  };
  // The live state the worker holds (posted once per change, not with every lint).
  let posted: LintStateData | undefined;
  return async (mutating, validating, live) => {
    if (broken) return inPage(mutating, validating, live);
    const id = ++next;
    const reply = await new Promise<FindingsReply | undefined>((resolve) => {
      pending.set(id, resolve);
      const request: FindingsRequest =
        live === posted
          ? { id, mutating, validating, keepLive: true }
          : { id, mutating, validating, live };
      posted = live;
      worker.postMessage(request);
    });
    if (!reply || reply.error !== undefined) return inPage(mutating, validating, live);
    return reply.findings;
  };
}

/**
 * Lint findings for the cluster's configurations. The linter (and the CEL compiler it pulls in)
 * starts after the page has loaded and painted, in a worker, so it stays out of the list page's
 * first-load JavaScript and off the main thread; once started, live changes are linted at once.
 * With `live` (the namespaces, discovery and backends the detail page lints with too) the checks
 * that need the live cluster run as well.
 */
export function useFindings(
  mutating: readonly ConfigLike[] | undefined,
  validating: readonly ConfigLike[] | undefined,
  live?: LintStateData,
): LintFinding[] | undefined {
  const [findings, setFindings] = useState<LintFinding[] | undefined>(undefined);
  useEffect(() => {
    if (!mutating && !validating) return;
    let cancelled = false;
    const lint = (run: Lint) => {
      void run(
        (mutating ?? []) as V1MutatingWebhookConfiguration[],
        (validating ?? []) as V1ValidatingWebhookConfiguration[],
        live,
      ).then((found) => {
        if (!cancelled) setFindings(found);
      });
    };
    if (linter) {
      lint(linter);
      return () => {
        cancelled = true;
      };
    }
    const cancelWait = afterLoadAndIdle(() => {
      linter ??= startLinter();
      lint(linter);
    });
    return () => {
      cancelled = true;
      cancelWait();
    };
  }, [mutating, validating, live]);
  return findings;
}
