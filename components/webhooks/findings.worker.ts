/**
 * The webhook list's linter, off the main thread: at thousands of hooks a lint pass takes long
 * enough to hold up scrolling and input, so the list posts its configurations here and renders
 * the findings when they come back (see use-findings.ts).
 */
import { lintConfigurations } from "@/lib/webhooks/findings";
import type { LintStateData } from "@/lib/api/webhooks";
import type { FindingsReply, FindingsRequest } from "./findings-messages";

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<FindingsRequest>) => void) | null;
  postMessage: (reply: FindingsReply) => void;
};

/** The live state last posted (see FindingsRequest). */
let live: LintStateData | undefined;

scope.onmessage = (e) => {
  const { id, mutating, validating } = e.data;
  if (!e.data.keepLive) live = e.data.live;
  try {
    scope.postMessage({ id, findings: lintConfigurations(mutating, validating, live) });
  } catch (err) {
    scope.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
