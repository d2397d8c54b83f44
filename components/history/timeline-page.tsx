"use client";

import { useEffect, useMemo } from "react";
import Link from "next/link";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { ErrorBox } from "@/components/ui/error-box";
import { seededStaleTime, timelineQuery } from "@/lib/queries/history";
import type { TimelineSeed } from "@/lib/api/history";
import type { HistoryKind } from "@/lib/admission/history/kinds";
import { groupByDay, type TimelineEntry } from "@/lib/admission/history/timeline";
import { Actor, ChangeContext } from "./actor";
import { ClockTime } from "./local-time";
import { objectHref, recreateHref, restoreHref } from "./links";
import styles from "./history.module.css";

/**
 * One admission object's changes, newest first, each with who, when and its field diff, and a
 * way to open any earlier version in the editor as a proposed edit. A page of 50 at a time: the
 * first screen never waits for the rest of a long history. The newest changes (a first screen of
 * them) come from the server in the page's HTML (`seed`) when the tab is in the context it was
 * read for; the rest of the first page is read right after.
 */
export function TimelinePage({
  kind,
  name,
  seed,
}: {
  kind: HistoryKind;
  name: string;
  seed?: TimelineSeed;
}) {
  const { context = "" } = useTabContext();
  const seeded = seed && seed.context === context ? seed : undefined;
  const q = useInfiniteQuery({
    ...timelineQuery(context, kind, name),
    enabled: !!context,
    ...(seeded
      ? {
          initialData: { pages: [seeded.page], pageParams: [0] },
          initialDataUpdatedAt: seeded.at,
          staleTime: seededStaleTime(seeded.at),
        }
      : {}),
  });
  // The server rendered a first screen only: the rest of the first page follows at once.
  const onlyFirstScreen = !!seeded && q.data?.pages.length === 1 && q.data.pages[0] === seeded.page;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = q;
  useEffect(() => {
    if (onlyFirstScreen && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [onlyFirstScreen, hasNextPage, isFetchingNextPage, fetchNextPage]);
  const entries = useMemo(() => q.data?.pages.flatMap((p) => p.entries) ?? [], [q.data]);
  const first = q.data?.pages[0];
  const days = useMemo(() => groupByDay(entries, (e) => e.change.time), [entries]);
  const newestId = entries[0]?.change.id;
  return (
    <div className="stack">
      <div className="page-head">
        <h1>
          History of <span className="mono">{name}</span>
        </h1>
        <span className="muted">{kind}</span>
        <span className="spacer" />
        {first ? (
          <span className="muted" data-testid="change-count">
            {first.total} change{first.total === 1 ? "" : "s"} stored
          </span>
        ) : null}
        <Link className="button" href={objectHref(kind, name)}>
          Open the {kind}
        </Link>
      </div>
      <p className="hint">
        Changes come from the apiserver&apos;s audit events of each write (who, from where) and,
        where the audit sink is not connected, from the watch (the diff without the actor). Open an
        earlier version to restore it: the editor shows the diff against the object as it is now,
        dry-runs it and applies it only if nobody changed the object meanwhile.{" "}
        <Link href="/changes">All recent changes</Link>
      </p>
      {q.error ? <ErrorBox error={q.error} /> : null}
      {!q.data && !q.error ? <p className="muted">Reading the history…</p> : null}
      {q.data && entries.length === 0 ? (
        <p className="muted">No change of this object is stored yet.</p>
      ) : null}
      <div data-testid="timeline">
        {days.map((d) => (
          <section key={d.day} aria-label={d.day}>
            <h2 className={styles.day}>{d.day}</h2>
            {d.items.map((e) => (
              <Entry
                key={e.change.id}
                entry={e}
                kind={kind}
                name={name}
                newest={e.change.id === newestId}
              />
            ))}
          </section>
        ))}
      </div>
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

const OPERATION_TEXT: Record<string, string> = {
  create: "created",
  update: "updated",
  patch: "patched",
  delete: "deleted",
  deletecollection: "deleted",
  observed: "found when watching began",
};

function Entry({
  entry,
  kind,
  name,
  newest,
}: {
  entry: TimelineEntry;
  kind: HistoryKind;
  name: string;
  newest: boolean;
}) {
  const c = entry.change;
  const restorable = c.object !== undefined && !newest && c.source !== "manifest";
  // A deleted object (not a static one: its file is its source) can be created again.
  const recreatable = entry.lastKnown !== undefined && c.source !== "manifest";
  return (
    <article className={styles.entry} data-testid="timeline-entry" data-change-id={c.id}>
      <div className={styles.entryHead}>
        <span className="mono">
          <ClockTime ms={c.time} />
        </span>
        <strong>{OPERATION_TEXT[c.operation] ?? c.operation}</strong>
        <span>
          by <Actor change={c} detail />
        </span>
        <span className="muted" data-testid="entry-context">
          in <ChangeContext change={c} />
        </span>
        <span className="spacer" />
        {c.version && c.source !== "manifest" && c.operation !== "delete" ? (
          <span className="muted mono">rv {c.version}</span>
        ) : null}
        <span className="badge" title={c.source === "audit" ? `audit ID ${c.auditID}` : undefined}>
          {c.source}
        </span>
        {restorable ? (
          <Link className="button" href={restoreHref(kind, name, c.id)} data-testid="restore">
            Restore this version…
          </Link>
        ) : null}
        {recreatable && entry.lastKnown !== undefined ? (
          <Link
            className="button"
            href={recreateHref(kind, entry.lastKnown)}
            data-testid="recreate"
          >
            Restore (create again)…
          </Link>
        ) : null}
      </div>
      {!entry.known ? (
        <p className="muted">
          The after-state of this write is not known (a Request-level audit event of a patch, with
          no watch record of it): its patch was{" "}
          <code className="mono">{(c.patch ?? "").slice(0, 300)}</code>
        </p>
      ) : entry.diff.length === 0 ? (
        <p className="muted">No configuration field changed (metadata or status only).</p>
      ) : (
        <table className={styles.diff} aria-label="Fields changed">
          <tbody>
            {entry.diff.map((d) => (
              <tr key={d.path} data-testid="diff-row">
                <td className={styles.path}>{d.path}</td>
                <td className={d.before !== undefined ? styles.before : undefined}>
                  {d.before ?? ""}
                </td>
                <td className={d.after !== undefined ? styles.after : undefined}>
                  {d.after ?? ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
