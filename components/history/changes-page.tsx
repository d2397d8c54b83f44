"use client";

import { useMemo, useState, type FormEvent } from "react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { ErrorBox } from "@/components/ui/error-box";
import { recentChangesQuery, seededStaleTime, type RecentFilter } from "@/lib/queries/history";
import type { RecentChangesSeed } from "@/lib/api/history";
import { HISTORY_KINDS, isHistoryKind } from "@/lib/admission/history/kinds";
import { recentFilterOf, sameRecentFilter } from "@/lib/admission/history/recent-filter";
import { Actor, ChangeContext } from "./actor";
import { DateTime } from "./local-time";
import { timelineHref } from "./links";

/**
 * Recent changes of admission objects across the cluster, newest first, filterable. The first
 * page comes from the server in the page's HTML (`seed`) when the tab's context and the URL's
 * filter are the ones it was read for.
 */
export function ChangesPage({ seed }: { seed?: RecentChangesSeed }) {
  const { context = "" } = useTabContext();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filter = useMemo(() => recentFilterOf(params), [params]);
  const seeded =
    seed && seed.context === context && sameRecentFilter(seed.filter, filter) ? seed : undefined;
  const q = useInfiniteQuery({
    ...recentChangesQuery(context, filter),
    enabled: !!context,
    ...(seeded
      ? {
          initialData: { pages: [seeded.page], pageParams: [0] },
          initialDataUpdatedAt: seeded.at,
          staleTime: seededStaleTime(seeded.at),
        }
      : {}),
  });
  const items = useMemo(() => q.data?.pages.flatMap((p) => p.items) ?? [], [q.data]);
  const [draft, setDraft] = useState({
    actor: filter.actor ?? "",
    name: filter.name ?? "",
    cluster: filter.cluster ?? "",
  });

  const go = (f: RecentFilter) => {
    const p = new URLSearchParams();
    if (f.actor) p.set("actor", f.actor);
    if (f.kind) p.set("kind", f.kind);
    if (f.name) p.set("name", f.name);
    if (f.cluster) p.set("cluster", f.cluster);
    const s = p.toString();
    router.replace(`${pathname}${s ? `?${s}` : ""}`, { scroll: false });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go({
      ...filter,
      actor: draft.actor.trim() || undefined,
      name: draft.name.trim() || undefined,
      cluster: draft.cluster.trim() || undefined,
    });
  };

  return (
    <div className="stack">
      <div className="page-head">
        <h1>Admission changes</h1>
        <span className="spacer" />
        {q.data ? <span className="muted">{items.length} shown</span> : null}
      </div>
      <p className="hint">
        Every write to a webhook configuration, admission policy or binding, newest first: from the
        apiserver&apos;s audit events (with who made it) and, where the audit sink is not connected,
        from the watch (&ldquo;actor unknown&rdquo;), and from the apiserver&apos;s static manifest
        files where the dashboard reads them. Context is the kubeconfig context each change was seen
        through (the watched one; for audit events the one named by PORTCULLIS_DECISIONS_CONTEXT).
        Each row opens the object&apos;s timeline with its field diff.
      </p>
      <form className="toolbar filters" onSubmit={submit} aria-label="Filter changes">
        <label>
          Actor
          <input
            type="search"
            value={draft.actor}
            placeholder="user, or unknown"
            onChange={(e) => setDraft({ ...draft, actor: e.target.value })}
          />
        </label>
        <label>
          Kind
          <select
            value={filter.kind ?? ""}
            onChange={(e) => {
              const k = e.target.value;
              go({ ...filter, kind: isHistoryKind(k) ? k : undefined });
            }}
          >
            <option value="">any</option>
            {HISTORY_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input
            type="search"
            value={draft.name}
            placeholder="part of a name"
            onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          />
        </label>
        <label>
          Context
          <input
            type="search"
            value={draft.cluster}
            placeholder="kubeconfig context, or unknown"
            onChange={(e) => setDraft({ ...draft, cluster: e.target.value })}
          />
        </label>
        <button type="submit">Apply</button>
      </form>
      {q.error ? <ErrorBox error={q.error} /> : null}
      {!q.data && !q.error ? <p className="muted">Reading changes…</p> : null}
      {q.data && items.length === 0 ? <p className="muted">No change matches.</p> : null}
      {items.length > 0 ? (
        <table className="data" data-testid="changes">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th>Kind</th>
              <th>Name</th>
              <th>Context</th>
              <th>Source</th>
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.id} data-testid="change-row">
                <td className="mono">
                  <DateTime ms={c.time} />
                </td>
                <td>
                  <Actor change={c} />
                </td>
                <td>{c.operation}</td>
                <td>{c.kind}</td>
                <td>
                  <Link className="mono" href={timelineHref(c.kind, c.name)}>
                    {c.name}
                  </Link>
                </td>
                <td data-testid="change-context">
                  <ChangeContext change={c} />
                </td>
                <td>
                  <span className="badge">{c.source}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {q.hasNextPage ? (
        <button
          type="button"
          onClick={() => void q.fetchNextPage()}
          disabled={q.isFetchingNextPage}
        >
          {q.isFetchingNextPage ? "Reading…" : "Older changes"}
        </button>
      ) : null}
    </div>
  );
}
