"use client";

import { YamlDiff } from "./yaml-diff";
import { ErrorBox } from "@/components/ui/error-box";
import { isApiserverVerdict, KubeApiError } from "@/lib/k8s/errors";

export type DryRun = { ok: true; submitted: string; stored: string } | { ok: false; error: Error };

/** The apiserver's verdict on a dry run, and the object as it would store it (defaults applied). */
export function DryRunResult({
  result,
  stale = false,
}: {
  result: DryRun;
  /** The text changed since the dry run: its verdict is not the current text's. */
  stale?: boolean;
}) {
  if (stale)
    return (
      <section className="panel" aria-label="Dry run result">
        <h2>
          Dry run: <span className="warn">of an earlier text</span>{" "}
          <span className="hint">
            the text changed since; run it again to see what the apiserver says of it now
          </span>
        </h2>
      </section>
    );
  if (!result.ok)
    return (
      <section className="panel" aria-label="Dry run result">
        <h2>
          Dry run:{" "}
          {!(result.error instanceof KubeApiError)
            ? "not sent"
            : isApiserverVerdict(result.error)
              ? "rejected by the apiserver"
              : "no answer from the apiserver"}
        </h2>
        <ErrorBox error={result.error} />
      </section>
    );
  return (
    <section className="panel" aria-label="Dry run result">
      <h2>
        Dry run: <span className="good">accepted by the apiserver</span>{" "}
        <span className="hint">
          left: your edit · right: the object as the server would store it, defaults applied
        </span>
      </h2>
      <YamlDiff
        id="dryrun"
        label="Server-defaulted diff"
        original={result.submitted}
        modified={result.stored}
        height={300}
      />
    </section>
  );
}
