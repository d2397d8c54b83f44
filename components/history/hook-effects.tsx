"use client";

import { useState } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { OutcomeChart } from "@/components/decisions/outcome-chart";
import { ApiError } from "@/lib/api/client";
import { effectsQuery, type EffectsInput } from "@/lib/queries/history";
import { DEFAULT_EFFECT_WINDOW_MIN, EFFECT_WINDOWS_MIN } from "@/lib/admission/history/effects";
import {
  cellText,
  compareRows,
  COMPACT_ROWS,
  COMPARED,
  shownRows,
  type CompareRow,
} from "@/lib/admission/history/compare-rows";
import type { HistoryKind } from "@/lib/admission/history/kinds";
import { clockMinute } from "@/lib/clock";
import { timelineHref } from "./links";
import styles from "./history.module.css";

/**
 * Effects next to causes: a hook's (or policy's) decisions over the last hour with a marker at
 * each change of its configuration, and for each change the decisions N minutes before against N
 * minutes after (N chosen here, 15 by default): one table, a row per change, newest first, the
 * older changes behind a disclosure.
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
  const [expanded, setExpanded] = useState(false);
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
  return (
    <section
      aria-label={`Changes and decisions of ${hook ?? policy ?? name}`}
      data-testid="hook-effects"
    >
      <OutcomeChart histogram={histogram} markers={markers} />
      <div className="toolbar">
        <span className="muted wrap-anywhere">
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
      <CompareTable
        rows={compareRows(comparisons, markers)}
        expanded={expanded}
        onExpand={setExpanded}
      />
    </section>
  );
}

function CompareTable({
  rows,
  expanded,
  onExpand,
}: {
  rows: CompareRow[];
  expanded: boolean;
  onExpand: (expanded: boolean) => void;
}) {
  if (rows.length === 0) return null;
  const { shown, hidden, hiddenWorse } = shownRows(rows, expanded);
  const folds = rows.length > COMPACT_ROWS;
  return (
    <table className={`data compact ${styles.compare}`} data-testid="before-after">
      <caption>
        Decisions {(rows[0]?.windowMs ?? 0) / 60_000} min before → after each change
        {folds ? ` (${rows.length} changes)` : ""}
      </caption>
      <thead>
        <tr>
          <th scope="col">Change</th>
          {COMPARED.map(([k, label]) => (
            <th key={k} scope="col" className="num">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {shown.map((r) => (
          <tr key={r.changeId} data-testid="ba-row" data-change-id={r.changeId}>
            <th scope="row" className={styles.compareChange}>
              {clockMinute(r.at)} {r.operation ?? "change"}
              {r.who ? <span className="muted"> by {r.who}</span> : null}
            </th>
            {r.cells.map((c) => (
              <td
                key={c.key}
                className={c.worse ? `num ${styles.jump}` : "num"}
                data-testid={`ba-${c.key}`}
              >
                {cellText(c)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
      {folds ? (
        <tfoot>
          <tr>
            <td colSpan={COMPARED.length + 1}>
              <button
                type="button"
                className="linkish"
                aria-expanded={expanded}
                onClick={() => onExpand(!expanded)}
              >
                {expanded
                  ? "Show only the newest changes"
                  : `${hidden} earlier change${hidden === 1 ? "" : "s"}${
                      hiddenWorse > 0 ? ` (${hiddenWorse} with a jump)` : ""
                    }…`}
              </button>
            </td>
          </tr>
        </tfoot>
      ) : null}
    </table>
  );
}
