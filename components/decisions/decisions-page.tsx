"use client";

import { useCallback, useMemo, useState } from "react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTabContext } from "@/components/layout/tab-context";
import { filterQuery } from "@/lib/queries/decisions";
import { readDecisionFilterLoosely, type DecisionFilter } from "@/lib/decisions/filter";
import { groupRepeats } from "@/lib/decisions/group";
import { hookContextLinks } from "@/lib/decisions/links";
import { ErrorBox } from "@/components/ui/error-box";
import { ApiError } from "@/lib/queries/fetch";
import { useDecisionFeed } from "./use-decision-feed";
import { DecisionFilters } from "./decision-filters";
import { DecisionTable } from "./decision-table";
import { DecisionDrawer } from "./decision-drawer";
import { OutcomeChart } from "./outcome-chart";
import { LiveIndicator } from "@/components/live/live-indicator";

const LIMIT = 500;
const SHOWN_GROUPS = 300;

/** Admission decisions: a live, filterable feed from the apiserver's audit events. */
export function DecisionsPage() {
  const { context } = useTabContext();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filter = useMemo(
    () => readDecisionFilterLoosely(new URLSearchParams(params.toString())),
    [params],
  );
  const selectedParam = Number(params.get("d") ?? "");
  const selected = Number.isInteger(selectedParam) && selectedParam > 0 ? selectedParam : undefined;
  const feed = useDecisionFeed(context, filter, LIMIT);
  const [showAll, setShowAll] = useState(false);

  const navigate = useCallback(
    (f: DecisionFilter, d?: number) => {
      router.replace(`${pathname}${filterQuery(f, d ? { d: String(d) } : {})}`, { scroll: false });
    },
    [router, pathname],
  );
  const groups = useMemo(() => groupRepeats(feed.data?.items ?? []), [feed.data]);
  const shown = showAll ? groups : groups.slice(0, SHOWN_GROUPS);
  const forbidden = feed.error instanceof ApiError && feed.error.status === 403;

  return (
    <div className={selected ? "with-drawer" : undefined}>
      <div className="stack">
        <div className="page-head">
          <h1>Admission decisions</h1>
          <LiveIndicator state={feed.paused ? "paused" : feed.live} />
          <button
            type="button"
            aria-pressed={feed.paused}
            onClick={() => feed.setPaused(!feed.paused)}
          >
            {feed.paused ? `Resume${feed.held ? ` (${feed.held} new)` : ""}` : "Pause"}
          </button>
          <span className="spacer" />
          {feed.data ? (
            <span className="muted">
              {feed.data.items.length} decisions shown
              {feed.data.items.length >= LIMIT ? " (newest)" : ""}
            </span>
          ) : null}
        </div>
        <DecisionFilters filter={filter} onChange={(f) => navigate(f)} />
        {filter.hook ? <HookContext hook={filter.hook} /> : null}
        {feed.error ? (
          <>
            <ErrorBox error={feed.error} />
            {forbidden ? (
              <p className="hint">
                Decisions show every user&apos;s requests and every denial message in the cluster,
                so reading them takes its own grant: <code>get</code> on the non-resource URL{" "}
                <code>/portcullis/decisions</code> (see the README).
              </p>
            ) : null}
          </>
        ) : null}
        {feed.data ? <OutcomeChart histogram={feed.data.histogram} /> : null}
        {!feed.data && !feed.error ? <p className="muted">Reading stored decisions…</p> : null}
        {feed.data && groups.length === 0 ? (
          <p className="muted">
            No decisions match. Clear the filters or widen the time range. Decisions arrive from the
            apiserver&apos;s audit webhook (see &ldquo;Admission decisions from your
            apiserver&rdquo; in the README to set it up); an allowing validating webhook leaves no
            trace in audit events.
          </p>
        ) : null}
        {groups.length > 0 ? (
          <DecisionTable
            groups={shown}
            selected={selected}
            onSelect={(id) => navigate(filter, id)}
          />
        ) : null}
        {!showAll && groups.length > SHOWN_GROUPS ? (
          <button type="button" onClick={() => setShowAll(true)}>
            Show all {groups.length} rows
          </button>
        ) : null}
      </div>
      {selected && context ? (
        <DecisionDrawer context={context} id={selected} onClose={() => navigate(filter)} />
      ) : null}
    </div>
  );
}

/** Where the webhook the feed is filtered to is found in the rest of the dashboard. */
function HookContext({ hook }: { hook: string }) {
  const links = hookContextLinks(hook);
  return (
    <p className="hint" data-testid="hook-context">
      Webhook <span className="mono">{hook}</span>:{" "}
      <Link href={links.list}>in the webhook list</Link> ·{" "}
      <Link href={links.matrix}>its column in the exemption matrix</Link>
    </p>
  );
}
