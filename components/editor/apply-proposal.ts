import { applyPatch, type Operation } from "fast-json-patch";
import type { Proposal } from "./editor-loader";

/**
 * Applies a proposed RFC 6902 patch to a copy of the stored object, strictly (a `replace` of a
 * missing member is refused, as the RFC says); never touches the stored object itself.
 */
export function applyProposal(
  stored: object,
  proposal: Proposal,
): { ok: true; object: unknown; message: string } | { ok: false; message: string } {
  const why = proposal.why ? ` (${proposal.why})` : "";
  if (!proposal.ok)
    return { ok: false, message: `The proposed change was not opened: ${proposal.message}.` };
  try {
    const r = applyPatch(structuredClone(stored), proposal.patch as Operation[], true, false);
    return {
      ok: true,
      object: r.newDocument,
      message: `Proposed change${why}: review the diff, run a dry run, then apply. Nothing is applied until you do.`,
    };
  } catch (e) {
    return { ok: false, message: `The proposed change does not apply: ${whyNot(e)}` };
  }
}

/** Why a patch did not apply, in a line (the library's message carries the whole document). */
function whyNot(e: unknown): string {
  const op = (e as { operation?: { op?: unknown; path?: unknown; value?: unknown } }).operation;
  if (e instanceof Error && e.name === "TEST_OPERATION_FAILED" && op)
    return `${String(op.path)} is no longer ${JSON.stringify(op.value)}: the configuration changed since the finding was made (a hook moved or was added); open the finding again.`;
  const first = (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";
  return `${first.slice(0, 300)} (the configuration changed since the finding was made?)`;
}
