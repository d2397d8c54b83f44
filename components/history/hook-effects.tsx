"use client";

import { useState } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { OutcomeChart } from "@/components/decisions/outcome-chart";
import { ApiError } from "@/lib/api/client";
import { effectsQuery, type EffectsInput } from "@/lib/queries/history";
import {
  DEFAULT_EFFECT_WINDOW_MIN,
  EFFECT_WINDOWS_MIN,
  type WindowStats,
} from "@/lib/admission/history/effects";
import type { HistoryKind } from "@/lib/admission/history/kinds";
import { clockMinute } from "@/lib/clock";
import { timelineHref } from "./links";
import styles from "./history.module.css";

const ROWS: ReadonlyArray<[keyof WindowStats, string]> = [
  ["calls", "decisions"],
  ["denials", "denials"],
  ["errors", "errors"],
  ["failOpens", "fail-opens"],
  ["timeouts", "timeouts"],
  ["p99Ms", "p99 latency (ms)"],
];

/**
 * Effects next to causes: a hook's (or policy's) decisions over the last hour with a marker at
 * each change of its configuration, and for each change the decisions N minutes before against N
 * minutes after (N chosen here, 15 by default).
 */
export function HookEffects({
  context,
  kind,
  name,
  hook,
  policy,
  phase,
}: {
  context: string;
  kind: HistoryKind;
  name: string;
  hook?: string;
  policy?: string;
  phase?: "mutating" | "validating";
}) {
  const [window, setWindow] = useState<number>(DEFAULT_EFFECT_WINDOW_MIN);
  const input: EffectsInput = {
    kind,
    name,
    ...(hook ? { hook } : {}),
    ...(policy ? { policy } : {}),
    ...(phase ? { phase } : {}),
    window,
  };
  const q = useQuery({ ...effectsQuery(context, input), enabled: !!context });
  if (q.error)
    return (
      <p className="hint">
        {q.error instanceof ApiError && q.error.status === 403
          ? "Your identity may not read admission decisions or changes."
          : q.error.message}
      </p>
    );
  if (!q.data) return <p className="muted">Reading changes and decisions…</p>;
  const { histogram, markers, comparisons } = q.data;
  const byId = new Map(markers.map((m) => [m.id, m]));
  return (
    <section
      aria-label={`Changes and decisions of ${hook ?? policy ?? name}`}
      data-testid="hook-effects"
    >
      <OutcomeChart histogram={histogram} markers={markers} />
      <div className="toolbar">
        <span className="muted">
          {markers.length === 0
            ? "No change of this configuration in this window."
            : `${markers.length} change${markers.length === 1 ? "" : "s"} of ${name} marked.`}{" "}
          <Link href={timelineHref(kind, name)}>History</Link>
        </span>
        <span className="spacer" />
        <label>
          Compare
          <select
            value={window}
            onChange={(e) => setWindow(Number(e.target.value))}
            aria-label="Minutes either side"
          >
            {EFFECT_WINDOWS_MIN.map((n) => (
              <option key={n} value={n}>
                {n} min
              </option>
            ))}
          </select>
          either side
        </label>
      </div>
      {[...comparisons].reverse().map((c) => {
        const m = byId.get(c.changeId);
        return (
          <table
            key={c.changeId}
            className={`data compact ${styles.compare}`}
            data-testid="before-after"
          >
            <caption>
              {m ? `${clockMinute(m.time)} ${m.operation} by ${m.who}` : "change"}:{" "}
              {c.windowMs / 60_000} min before → after
            </caption>
            <tbody>
              {ROWS.map(([k, label]) => {
                const b = c.before[k];
                const a = c.after[k];
                const jump = k !== "calls" && (a ?? 0) > (b ?? 0);
                return (
                  <tr key={k} data-testid={`ba-${k}`}>
                    <th scope="row">{label}</th>
                    <td className="num">{b ?? "—"}</td>
                    <td className={jump ? `num ${styles.jump}` : "num"}>{a ?? "—"}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        );
      })}
    </section>
  );
}
