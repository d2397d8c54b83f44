"use client";

import Link from "next/link";
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { EpisodeView, KeptFieldView } from "@/lib/api/break-glass";
import { isBindingBreakGlass } from "@/lib/admission/break-glass/record";
import { objectPagePath } from "@/lib/webhooks/resource-kinds";
import { revertBreakGlass } from "@/lib/queries/break-glass";
import { dateTime } from "@/lib/clock";
import { formatTimeLeft } from "./time-left";

const MODE_TEXT: Record<EpisodeView["mode"], (e: EpisodeView) => string> = {
  ignore: () => "failurePolicy Ignore",
  "exclude-namespaces": (e) => `namespaces excluded: ${(e.namespaces ?? []).join(", ")}`,
  grant: (e) => `breakglass granted to group ${e.group ?? "?"}`,
  warn: (e) => {
    const f = e.fields.find((x) => x.field === "validationActions");
    const was = Array.isArray(f?.original) ? (f.original as unknown[]).join(", ") : "Deny";
    return `validationActions Warn, Audit (was ${was})`;
  },
};

const KIND_SHORT: Record<EpisodeView["resource"], string> = {
  validatingwebhookconfigurations: "ValidatingWebhookConfiguration",
  mutatingwebhookconfigurations: "MutatingWebhookConfiguration",
  validatingadmissionpolicybindings: "ValidatingAdmissionPolicyBinding",
  mutatingadmissionpolicybindings: "MutatingAdmissionPolicyBinding",
};

function useRefresh() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ["break-glass"] });
}

/** One active break-glass: what, who, why, time left, and the early revert. */
export function ActiveEpisode({ episode: e, now }: { episode: EpisodeView; now: number }) {
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const left = e.expiresAt - now;
  return (
    <div className="break-glass-episode" data-testid="break-glass-episode" data-id={e.id}>
      <span>
        <strong>Break-glass</strong> on {KIND_SHORT[e.resource]}{" "}
        <Link href={objectPagePath(e.resource, e.name)}>{e.name}</Link>
        {e.hooks.length === 1 && !isBindingBreakGlass(e.resource) ? (
          <> (hook {e.hooks[0]})</>
        ) : null}
        : {MODE_TEXT[e.mode](e)} — by {e.actor}: “{e.reason}”.{" "}
      </span>
      <span data-testid="break-glass-time-left">
        {left > 0 ? `${formatTimeLeft(left)} left` : "reverting now…"}
      </span>{" "}
      {e.canRevert ? (
        <button
          type="button"
          disabled={busy || e.state === "reverting"}
          onClick={() => {
            setBusy(true);
            setError(undefined);
            revertBreakGlass(e.id)
              .catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)))
              .finally(() => {
                setBusy(false);
                void refresh();
              });
          }}
        >
          {busy ? "Reverting…" : "Revert now"}
        </button>
      ) : (
        <span className="muted">(you may not revert it)</span>
      )}
      {e.outcome?.error ? (
        <span className="bad"> Last revert attempt failed: {e.outcome.error} (retried).</span>
      ) : null}
      {error ? <span className="bad"> {error}</span> : null}
    </div>
  );
}

function fieldKey(k: { hook: string; field: string }) {
  return `${k.hook}/${k.field}`;
}

function keptText(k: KeptFieldView, binding: boolean): string {
  const of = binding ? `binding ${k.hook}` : `hook ${k.hook}`;
  if (k.hookGone) return `${of} is gone`;
  const who = k.changedBy
    .map((m) => `${m.manager} (${m.operation}${m.time ? `, ${dateTime(Date.parse(m.time))}` : ""})`)
    .join(", ");
  return `${k.field} of ${of} is now ${JSON.stringify(k.now)}, changed after break-glass${who ? ` — by ${who}` : ""}; break-glass had set ${JSON.stringify(k.set)}, the original was ${JSON.stringify(k.original)}`;
}

/** An ended break-glass whose revert left fields someone changed: the question it asks. */
export function KeptEpisode({ episode: e }: { episode: EpisodeView }) {
  const refresh = useRefresh();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const kept = e.outcome?.kept ?? [];
  const answer = (a: { force?: string[]; keep?: boolean }) => {
    setBusy(true);
    setError(undefined);
    revertBreakGlass(e.id, a)
      .catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        setBusy(false);
        void refresh();
      });
  };
  return (
    <div className="break-glass-episode" data-testid="break-glass-kept" data-id={e.id}>
      <strong>Break-glass ended</strong> on{" "}
      <Link href={objectPagePath(e.resource, e.name)}>{e.name}</Link> (by {e.actor}: “{e.reason}
      ”), but someone changed {kept.length === 1 ? "a field" : "fields"} meanwhile, so the revert
      left {kept.length === 1 ? "it" : "them"} as found:
      <ul>
        {kept.map((k) => (
          <li key={fieldKey(k)} data-testid="break-glass-kept-field">
            {keptText(k, isBindingBreakGlass(e.resource))}
          </li>
        ))}
      </ul>
      {e.canRevert ? (
        <span className="actions">
          <button
            type="button"
            disabled={busy}
            onClick={() => answer({ force: kept.filter((k) => !k.hookGone).map(fieldKey) })}
          >
            Restore the originals anyway
          </button>
          <button type="button" disabled={busy} onClick={() => answer({ keep: true })}>
            Keep them as they are
          </button>
        </span>
      ) : null}
      {error ? <span className="bad"> {error}</span> : null}
    </div>
  );
}
