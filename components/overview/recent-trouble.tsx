"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import type { DecisionFilter } from "@/lib/decisions/filter";
import { OUTCOME_LABELS, outcomesOfTone, type OutcomeTone } from "@/lib/decisions/outcomes";
import { summarizeTallies, type DeciderTally } from "@/lib/decisions/tally";
import { POD_SECURITY } from "@/lib/admission/audit/deciders";
import { decisionTallyQuery, filterQuery } from "@/lib/queries/decisions";
import { ApiError } from "@/lib/api/client";
import { OutcomeBadge } from "@/components/decisions/outcome-badge";
import { clockTime } from "@/lib/clock";

/** Most webhooks and policies listed; the rest are in the feed. */
const LISTED = 10;

type TroubleTone = Exclude<OutcomeTone, "ok">;

/** Worst first. */
const TONE_ORDER: TroubleTone[] = ["alarm", "refused", "note"];

/** Every outcome other than letting the request through, worst first. */
const TROUBLE_OUTCOMES = TONE_ORDER.flatMap(outcomesOfTone);

const TONE_WORDS: Record<TroubleTone, string> = {
  alarm: "calls failed (timeouts, errors, fail-opens)",
  refused: "refusals",
  note: "warnings or audits",
};

const count = (n: number) => n.toLocaleString("en-US");

/** The feed from the window's start, optionally narrowed. */
function feedHref(from: number, f: Partial<DecisionFilter> = {}): string {
  return `/decisions${filterQuery({ outcome: [], ...f, from })}`;
}

function DeciderRow({ d, from }: { d: DeciderTally; from: number }) {
  const who = { [d.field]: d.name };
  const outcomes = TROUBLE_OUTCOMES.filter((o) => (d.counts[o] ?? 0) > 0);
  return (
    <tr data-decider={d.name} data-field={d.field}>
      <td>
        <span className="muted">
          {d.field === "hook"
            ? "webhook "
            : d.name === POD_SECURITY
              ? "in-tree plugin "
              : "policy "}
        </span>
        <Link className="mono" href={feedHref(from, who)}>
          {d.name}
        </Link>
      </td>
      <td>
        {outcomes.map((o) => (
          <Link
            key={o}
            className="tally-outcome"
            href={feedHref(from, { ...who, outcome: [o] })}
            title={`the ${OUTCOME_LABELS[o]} decisions of ${d.name}`}
          >
            <OutcomeBadge outcome={o} /> <span className="num">×{count(d.counts[o] ?? 0)}</span>
          </Link>
        ))}
      </td>
      <td className="num">{count(d.total)}</td>
      <td className="mono">{clockTime(d.lastTrouble)}</td>
    </tr>
  );
}

/**
 * The webhooks and policies that did not simply let requests through in the last 15 minutes —
 * those that timed out, erred or failed open first — each linked to its decisions in the feed.
 */
export function RecentTrouble({ context }: { context: string }) {
  const q = useQuery(decisionTallyQuery(context));
  let body: ReactNode;
  if (q.error) {
    body = (
      <p className="hint">
        {q.error instanceof ApiError && q.error.status === 403
          ? "Your identity may not read admission decisions."
          : q.error.message}
      </p>
    );
  } else if (!q.data) {
    body = <p className="muted">Reading…</p>;
  } else {
    const { from } = q.data;
    const s = summarizeTallies(q.data.tallies);
    body =
      s.total === 0 ? (
        <p className="muted">
          No admission decisions stored since {clockTime(from)}. They arrive from the
          apiserver&apos;s audit webhook (see the README on pointing an apiserver at Portcullis).
        </p>
      ) : (
        <>
          <p className="tally-line" data-testid="tally-line">
            <Link href={feedHref(from)}>{count(s.total)} decisions</Link> since {clockTime(from)}
            {TONE_ORDER.map((tone) =>
              s.byTone[tone] > 0 ? (
                <span key={tone}>
                  {" · "}
                  <Link href={feedHref(from, { outcome: outcomesOfTone(tone) })}>
                    {count(s.byTone[tone])}
                  </Link>{" "}
                  {TONE_WORDS[tone]}
                </span>
              ) : null,
            )}
            {q.data.truncated ? " (the rarest outcomes of some hooks are not counted)" : null}
          </p>
          {s.troubled.length === 0 ? (
            <p className="muted">
              Every decision let its request through ({s.quiet} webhooks and policies).
            </p>
          ) : (
            <table
              className="data"
              aria-label="Webhooks and policies that did not let requests through"
            >
              <thead>
                <tr>
                  <th scope="col">Webhook / policy</th>
                  <th scope="col">Outcomes other than let through</th>
                  <th scope="col" className="num">
                    Decisions
                  </th>
                  <th scope="col">Latest of those</th>
                </tr>
              </thead>
              <tbody>
                {s.troubled.slice(0, LISTED).map((d) => (
                  <DeciderRow key={`${d.field}:${d.name}`} d={d} from={from} />
                ))}
              </tbody>
            </table>
          )}
          {s.troubled.length > LISTED ? (
            <p className="hint">
              {s.troubled.length - LISTED} more in{" "}
              <Link href={feedHref(from, { outcome: TROUBLE_OUTCOMES })}>the feed</Link>.
            </p>
          ) : s.troubled.length > 0 && s.quiet > 0 ? (
            <p className="hint">{s.quiet} more webhooks and policies let every request through.</p>
          ) : null}
        </>
      );
  }
  return (
    <section className="panel" aria-labelledby="trouble-h">
      <h2 id="trouble-h">Recent admission decisions</h2>
      {body}
    </section>
  );
}
