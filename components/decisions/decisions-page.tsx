"use client";

import { useCallback, useMemo, useState } from "react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTabContext } from "@/components/layout/tab-context";
import { filterQuery } from "@/lib/queries/decisions";
import { readDecisionFilterLoosely, type DecisionFilter } from "@/lib/decisions/filter";
import { groupRepeats } from "@/lib/decisions/group";
import { hookContextLinks, predictTargets } from "@/lib/decisions/links";
import { policyHref } from "@/lib/health/links";
import { isPolicySource } from "@/lib/admission/model/hook-identity";
import { hookTargetParam, predictHref, type HookTarget } from "@/lib/predict/links";
import { ErrorBox } from "@/components/ui/error-box";
import { ApiError } from "@/lib/api/client";
import { useDecisionFeed } from "./use-decision-feed";
import { DecisionFilters } from "./decision-filters";
import { DecisionTable } from "./decision-table";
import { DecisionDrawer } from "./decision-drawer";
import { OutcomeChart } from "./outcome-chart";
import { LiveIndicator } from "@/components/live/live-indicator";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";

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
  const predict = useMemo(
    () => predictTargets(feed.data?.items ?? [], filter),
    [feed.data, filter],
  );
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
        <OutsideApiNotice />
        <DecisionFilters filter={filter} onChange={(f) => navigate(f)} />
        {filter.hook ? <HookContext hook={filter.hook} predict={predict} /> : null}
        {filter.policy ? <PolicyContext policy={filter.policy} predict={predict} /> : null}
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

/** Links to predict the hooks in `targets` (see predictTargets). */
function PredictLinks({ targets, named }: { targets: HookTarget[]; named: boolean }) {
  return targets.map((t) => (
    <span key={hookTargetParam(t)}>
      {" · "}
      <Link href={predictHref(t)}>
        {named ? `its prediction (in ${t.configuration})` : "its prediction"}
      </Link>
    </span>
  ));
}

/** Where the webhook the feed is filtered to is found in the rest of the dashboard. */
function HookContext({ hook, predict }: { hook: string; predict: HookTarget[] }) {
  const links = hookContextLinks(hook);
  const mine = predict.filter((t) => t.name === hook);
  return (
    <p className="hint" data-testid="hook-context">
      Webhook <span className="mono">{hook}</span>:{" "}
      <Link href={links.list}>in the webhook list</Link> ·{" "}
      <Link href={links.matrix}>its column in the exemption matrix</Link>
      {/* Named by configuration when the webhook's name stands in several. */}
      <PredictLinks targets={mine} named={mine.length > 1} />
    </p>
  );
}

/** The policy the feed is filtered to: its page and its prediction, as its decisions name it. */
function PolicyContext({ policy, predict }: { policy: string; predict: HookTarget[] }) {
  const kinds = predict.filter((t) => t.name === "" && t.configuration === policy);
  if (kinds.length === 0) return null;
  return (
    <p className="hint" data-testid="policy-context">
      Policy <span className="mono">{policy}</span>:{" "}
      {kinds.map((t, i) => (
        <span key={t.source}>
          {i > 0 ? " · " : null}
          {isPolicySource(t.source) ? (
            <Link href={policyHref(t.source, policy)}>its page</Link>
          ) : null}
        </span>
      ))}
      <PredictLinks targets={kinds} named={false} />
    </p>
  );
}
