"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { decisionListQuery, filterQuery } from "@/lib/queries/decisions";
import type { DecisionFilter } from "@/lib/decisions/filter";
import { objectRefText } from "@/lib/decisions/object-ref";
import { messageGist } from "@/lib/decisions/message";
import { visibleText } from "@/lib/decisions/visible-text";
import { ApiError } from "@/lib/api/client";
import { clockTime } from "@/lib/clock";
import { OutcomeBadge } from "./outcome-badge";

const SHOWN = 8;

/**
 * The last few decisions of one webhook (or policy), with a link to the filtered feed. `within`
 * names the phase and the webhook's configuration (or the policy's binding): a webhook name is
 * often in several configurations (cert-manager's is in a mutating and a validating one), and a
 * ValidatingAdmissionPolicy and a MutatingAdmissionPolicy may share a name; the other's calls are
 * not this one's.
 */
export function RecentDecisions({
  context,
  name,
  policy = false,
  within,
}: {
  context: string;
  name: string;
  policy?: boolean;
  within?: { phase: "mutating" | "validating"; configuration?: string };
}) {
  const feed: DecisionFilter = policy ? { policy: name, outcome: [] } : { hook: name, outcome: [] };
  const filter: DecisionFilter = within ? { ...feed, ...within } : feed;
  const q = useQuery({ ...decisionListQuery(context, filter, SHOWN), enabled: !!context });
  // The feed's own form shows the phase, not the configuration: the link carries the phase only.
  const shown: DecisionFilter = within ? { ...feed, phase: within.phase } : feed;
  const href = `/decisions${filterQuery(shown)}`;
  return (
    <section className="recent-decisions" aria-label={`Recent decisions of ${name}`}>
      <h3>
        Recent decisions <Link href={href}>open in the feed</Link>
      </h3>
      {q.error ? (
        <p className="hint">
          {q.error instanceof ApiError && q.error.status === 403
            ? "Your identity may not read admission decisions."
            : q.error.message}
        </p>
      ) : !q.data ? (
        <p className="muted">Reading…</p>
      ) : q.data.items.length === 0 ? (
        <p className="muted">No stored decisions for this {policy ? "policy" : "webhook"}.</p>
      ) : (
        <table className="data">
          <tbody>
            {q.data.items.map((d) => (
              <tr key={d.id}>
                <td className="mono">{clockTime(d.time)}</td>
                <td>
                  <OutcomeBadge outcome={d.outcome} />
                </td>
                <td className="mono">
                  {d.request.operation} {d.request.resource} {objectRefText(d.request)}
                </td>
                <td>
                  <Link
                    href={`/decisions${filterQuery(shown, { d: String(d.id) })}`}
                    title={visibleText(d.message) || undefined}
                  >
                    {messageGist(d.message) || "details"}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
