"use client";

import Link from "next/link";
import { StaticBadge } from "@/components/outside-api/static-badge";
import { useRef } from "react";
import type { FindingCounts, ListState, SortKey } from "@/lib/webhooks/list-filter";
import type { HookRow } from "@/lib/webhooks/summary";
import { isWebhookResource } from "@/lib/webhooks/resource-kinds";
import { CaExpiry } from "./ca-expiry";
import { FindingsBadges } from "./findings-badges";
import { LIST_INITIAL_HEIGHT, LIST_OVERSCAN, LIST_ROW_HEIGHT } from "@/lib/webhooks/list-preview";
import { useFixedRows } from "./use-fixed-rows";

const ROW_HEIGHT = LIST_ROW_HEIGHT;

interface Column {
  label: string;
  sort?: SortKey;
  width: string;
  title?: string;
}

const COLUMNS: Column[] = [
  { label: "Kind", sort: "kind", width: "78px" },
  { label: "Configuration", sort: "configuration", width: "minmax(140px,1.2fr)" },
  { label: "Hook", sort: "hook", width: "minmax(140px,1.2fr)" },
  { label: "Failure", sort: "failurePolicy", width: "66px", title: "failurePolicy" },
  { label: "Timeout", sort: "timeout", width: "72px", title: "timeoutSeconds" },
  { label: "Side effects", sort: "sideEffects", width: "92px" },
  { label: "Match", sort: "matchPolicy", width: "82px", title: "matchPolicy" },
  { label: "Rules", width: "minmax(160px,1.6fr)" },
  { label: "Selectors (ns / object)", width: "minmax(120px,1fr)" },
  { label: "Backend", sort: "backend", width: "minmax(120px,1fr)" },
  { label: "CA", sort: "ca", width: "64px", title: "caBundle expiry" },
  { label: "Findings", sort: "findings", width: "92px" },
];

/** The grid template shared by the header and every row. */
const GRID = COLUMNS.map((c) => c.width).join(" ");

function shortKind(kind: string): string {
  return kind.replace("WebhookConfiguration", "").replace("Configuration", "");
}

function Defaulted({ value, defaulted }: { value: string | number; defaulted: boolean }) {
  return defaulted ? (
    <span className="dflt" title="not set: the v1 default applies">
      {value}
    </span>
  ) : (
    <>{value}</>
  );
}

function RowCells({
  r,
  findings,
  findingsPending,
  now,
}: {
  r: HookRow;
  findings: FindingCounts;
  findingsPending: boolean;
  now: number;
}) {
  const href = isWebhookResource(r.resource)
    ? `/webhooks/${r.resource}/${encodeURIComponent(r.configuration)}`
    : r.resource === "initializerconfigurations"
      ? "/initializers"
      : r.resource === "externaladmissionhookconfigurations"
        ? "/external-admission-hooks"
        : undefined;
  const hookHref =
    href && r.position >= 0 && isWebhookResource(r.resource) ? `${href}#hook-${r.position}` : href;
  const sel =
    r.position === -1 && !r.namespaceSelector ? "" : `${r.namespaceSelector} / ${r.objectSelector}`;
  return (
    <>
      <span role="cell" title={r.kind}>
        {shortKind(r.kind)}
      </span>
      <span role="cell" className="mono" title={r.configuration}>
        {href ? <Link href={href}>{r.configuration}</Link> : r.configuration}{" "}
        <StaticBadge origin={r.origin} withFile={false} />
      </span>
      <span role="cell" className="mono" title={r.hook}>
        {r.hook ? (
          hookHref && r.position >= 0 ? (
            <Link href={hookHref}>{r.hook}</Link>
          ) : (
            r.hook
          )
        ) : (
          <span className="muted">no hooks</span>
        )}
      </span>
      <span role="cell" className={r.failurePolicy.value === "Ignore" ? "warn" : undefined}>
        <Defaulted {...r.failurePolicy} />
      </span>
      <span role="cell" className="num">
        {r.timeoutSeconds.value ? (
          <Defaulted value={`${r.timeoutSeconds.value}s`} defaulted={r.timeoutSeconds.defaulted} />
        ) : null}
      </span>
      <span role="cell">{r.sideEffects}</span>
      <span role="cell">
        <Defaulted {...r.matchPolicy} />
      </span>
      <span role="cell" className="mono" title={r.rules}>
        {r.rules}
      </span>
      <span role="cell" className="mono" title={sel}>
        {sel}
      </span>
      <span role="cell" className="mono" title={r.backend}>
        {r.backend}
      </span>
      <span role="cell">
        {r.position === -1 && !r.caNotAfter && !r.backend ? null : (
          <CaExpiry notAfter={r.caNotAfter} now={now} />
        )}
      </span>
      <span role="cell">
        <FindingsBadges counts={findings[r.id]} pending={findingsPending} />
      </span>
    </>
  );
}

/** The virtualized list: only visible rows are in the DOM, so 1,000 hooks scroll smoothly. */
export function HookTable({
  rows,
  count,
  state,
  findings,
  findingsPending,
  onSort,
  now,
}: {
  now: number;
  /** The rows in list order: all of them, or the first ones (the server's first screen). */
  rows: readonly HookRow[];
  /** How many rows the list has (the table's scroll height and row count). */
  count: number;
  state: ListState;
  findings: FindingCounts;
  findingsPending: boolean;
  onSort: (k: SortKey) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // Only the rows in view are in the DOM; the server renders the first screen of them.
  const win = useFixedRows({
    count,
    rowHeight: ROW_HEIGHT,
    overscan: LIST_OVERSCAN,
    scrollRef,
    initialHeight: LIST_INITIAL_HEIGHT,
  });
  const visible: number[] = [];
  for (let i = win.start; i < win.end; i++) visible.push(i);
  return (
    <div
      className="vtable"
      role="table"
      aria-label="Webhooks"
      aria-rowcount={count + 1}
      ref={scrollRef}
    >
      <div role="rowgroup" className="vhead">
        <div role="row" className="vrow" style={{ gridTemplateColumns: GRID }} aria-rowindex={1}>
          {COLUMNS.map((c) => (
            <span
              role="columnheader"
              key={c.label}
              title={c.title}
              aria-sort={
                c.sort && state.sort === c.sort
                  ? state.desc
                    ? "descending"
                    : "ascending"
                  : undefined
              }
            >
              {c.sort ? (
                <button type="button" className="sort" onClick={() => c.sort && onSort(c.sort)}>
                  {c.label}
                  {state.sort === c.sort ? (state.desc ? " ▾" : " ▴") : ""}
                </button>
              ) : (
                c.label
              )}
            </span>
          ))}
        </div>
      </div>
      <div role="rowgroup" style={{ height: win.totalHeight, position: "relative" }}>
        {visible.map((index) => {
          const r = rows[index];
          if (!r) return null;
          return (
            <div
              role="row"
              key={r.id}
              className="vrow"
              data-row-id={r.id}
              aria-rowindex={index + 2}
              style={{
                gridTemplateColumns: GRID,
                position: "absolute",
                top: 0,
                left: 0,
                right: 0,
                height: ROW_HEIGHT,
                transform: `translateY(${index * ROW_HEIGHT}px)`,
              }}
            >
              <RowCells r={r} findings={findings} findingsPending={findingsPending} now={now} />
            </div>
          );
        })}
      </div>
      {count === 0 ? (
        <p className="muted empty">
          No webhooks match. Clear the search and filters above, or create a configuration with New.
        </p>
      ) : null}
    </div>
  );
}
