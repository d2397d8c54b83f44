"use client";

import Link from "next/link";
import { lazy, Suspense, useCallback, useMemo, useState } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { hookRows, type ConfigLike, type HookRow } from "@/lib/webhooks/summary";
import { staticObjectsOf } from "@/lib/webhooks/static-objects";
import { admissionManifestsQuery } from "@/lib/queries/admission-manifests";
import {
  applyListState,
  configFindings,
  configRows,
  listStateQuery,
  type FindingCounts,
  parseListState,
  type ListState,
  type SortKey,
} from "@/lib/webhooks/list-filter";
import { countFindings } from "@/lib/webhooks/finding-counts";
import { webhookAccessQuery } from "@/lib/queries/webhooks";
import { parseSeedCollections, type WebhookListSeedHead } from "@/lib/webhooks/list-seed";
import { servedHookKinds } from "@/lib/webhooks/hook-kinds";
import { unpackListPreview, type PackedListPreview } from "@/lib/webhooks/list-preview";
import { useStreamedSeed } from "@/components/ui/use-settled";
import { ApiError } from "@/lib/api/client";
import { useWebhookConfigs } from "./use-webhook-configs";
import { useFindings } from "./use-findings";
import { lintMinor } from "@/lib/webhooks/lint-minor";
import { assumedMinorText } from "@/lib/admission/model/kubernetes-minor";
import { useLintState } from "./use-lint-state";
import { ListToolbar } from "./list-toolbar";
import { ActiveFights } from "@/components/provenance/active-fights";
import { HookTable } from "./hook-table";
import { CreateMenu, type TemplateEntry } from "./create-menu";
import { LiveIndicator } from "@/components/live/live-indicator";
import { dashboardError } from "@/lib/api/contract";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";

// Only shown when the cluster cannot be read: kept out of the page's first-load JavaScript.
const ClusterUnreachable = lazy(() =>
  import("@/components/overview/cluster-unreachable").then((m) => ({
    default: m.ClusterUnreachable,
  })),
);

const WEBHOOK_RESOURCES = [
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
] as const;

const withCollections = (head: WebhookListSeedHead, json: string) => ({
  ...head,
  collections: parseSeedCollections(json),
});

/**
 * Webhooks: every hook of every served configuration kind, live, filterable, virtualized. The
 * first screen of rows comes cut by the server (`preview`), so neither the server render nor
 * hydration makes rows for hooks off the screen; the configurations follow (`collections`) and are
 * read once a frame has painted.
 */
export function WebhooksListPage({
  head,
  preview: packed,
  collections,
  templates,
}: {
  /** Whose view the server read and what the cluster serves. */
  head?: WebhookListSeedHead;
  /** The first screen, cut on the server for `preview.params` (shown until the lists are in). */
  preview?: PackedListPreview;
  /** The seed's collections (JSON), arriving in the same response after the first screen. */
  collections?: Promise<string | undefined>;
  templates: readonly TemplateEntry[];
}) {
  const { seed, pending } = useStreamedSeed(head, collections, withCollections);
  const { context, kinds, live, error, loading } = useWebhookConfigs(
    seed,
    servedHookKinds,
    pending,
  );
  const firstScreen = useMemo(() => {
    try {
      return packed && unpackListPreview(packed);
    } catch {
      return undefined;
    }
  }, [packed]);
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const state = useMemo(() => parseListState(new URLSearchParams(params.toString())), [params]);
  const [now] = useState(() => Date.now());
  const access = useQuery({ ...webhookAccessQuery(context ?? ""), enabled: !!context });

  const setState = useCallback(
    (next: Partial<ListState>) => {
      const q = listStateQuery({ ...state, ...next });
      router.replace(q ? `${pathname}?${q}` : pathname, { scroll: false });
    },
    [state, router, pathname],
  );
  const onSort = useCallback(
    (k: SortKey) => setState({ sort: k, desc: state.sort === k ? !state.desc : false }),
    [setState, state.sort, state.desc],
  );

  const mutating = kinds.find((k) => k.kind === "MutatingWebhookConfiguration")?.items;
  const validating = kinds.find((k) => k.kind === "ValidatingWebhookConfiguration")?.items;
  // The static configurations the apiserver loads from its manifest directories (when the
  // dashboard reads them), first as the apiserver calls them, each marked with its file.
  const manifests = useQuery({ ...admissionManifestsQuery(context ?? ""), enabled: !!context });
  const staticRows = useMemo<HookRow[]>(
    () =>
      WEBHOOK_RESOURCES.flatMap((resource) =>
        staticObjectsOf<ConfigLike>(manifests.data?.objects, resource).flatMap((s) =>
          hookRows([s.object], resource).map((r) => ({ ...r, origin: s.origin })),
        ),
      ),
    [manifests.data],
  );
  const allRows = useMemo<HookRow[]>(
    () => [...staticRows, ...kinds.flatMap((k) => hookRows(k.items ?? [], k.resource))],
    [kinds, staticRows],
  );
  // The live state for the checks that need it, read once the offline findings are shown (so it
  // stays out of the first load); until then, and if it cannot be read, the offline checks.
  const [offlineShown, setOfflineShown] = useState(false);
  const lintState = useLintState(context, mutating, validating, offlineShown);
  const findings = useFindings(mutating, validating, lintState.data);
  if (findings && !offlineShown) setOfflineShown(true);
  const hookCounts = useMemo(
    () => (findings ? countFindings(allRows, findings) : {}),
    [allRows, findings],
  );
  const viewRows = useMemo(
    () => (state.view === "configs" ? configRows(allRows) : allRows),
    [allRows, state.view],
  );
  const counts = useMemo(
    () => (state.view === "configs" ? configFindings(allRows, hookCounts) : hookCounts),
    [allRows, hookCounts, state.view],
  );
  const rows = useMemo(() => applyListState(viewRows, state, counts), [viewRows, state, counts]);

  if (error) {
    const e =
      error instanceof ApiError
        ? error
        : new ApiError(dashboardError({ status: 0, reason: "Error", message: error.message }));
    return (
      <>
        <h1>Webhooks</h1>
        <Suspense fallback={<p role="alert">{e.message}</p>}>
          <ClusterUnreachable error={e} context={context} />
        </Suspense>
      </>
    );
  }
  const kindErrors = kinds.filter((k) => k.error);
  const canCreate =
    access.data?.validatingwebhookconfigurations.create ||
    access.data?.mutatingwebhookconfigurations.create;
  // Until the lists are in, the server's first screen stands in for them (when it was cut for
  // this context and list state).
  const preview =
    loading &&
    firstScreen &&
    head?.context === context &&
    firstScreen.params === listStateQuery(state)
      ? firstScreen
      : undefined;
  const kindCounts = new Map(preview?.kinds);
  return (
    <>
      <div className="page-head">
        <h1>
          Webhooks <LiveIndicator {...live} />
        </h1>
        <span className="muted">
          {kinds
            .map((k) => `${k.items?.length ?? kindCounts.get(k.kind) ?? "…"} ${k.kind}`)
            .join(" · ")}
        </span>
        <span className="muted" data-testid="lint-mode">
          {lintState.data
            ? `· findings: every check, the live ones included${lintState.data.notices.length ? ` (${lintState.data.notices.join(" ")})` : ""}`
            : lintState.error
              ? `· findings: offline checks only (the live state could not be read: ${lintState.error.message})`
              : "· findings: offline checks so far"}{" "}
          <span data-testid="lint-minor">· as {assumedMinorText(lintMinor(lintState.data))}</span>
        </span>
        <span className="spacer" />
        <Link href="/webhooks/order">Call order</Link>
        <CreateMenu enabled={!!canCreate} templates={templates} />
      </div>
      <OutsideApiNotice />
      {kindErrors.map((k) => (
        <p key={k.kind} className="alert" role="alert">
          {k.kind}: {k.error?.message}
        </p>
      ))}
      {!loading && context ? (
        <ActiveFights
          context={context}
          refs={kinds.map((k) => k.ref)}
          kinds={["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]}
        />
      ) : null}
      <ListToolbar
        state={state}
        kinds={kinds.map((k) => k.kind)}
        onChange={setState}
        shown={preview ? preview.shown : rows.length}
        total={preview ? preview.total : viewRows.length}
      />
      {preview ? (
        <HookTable
          rows={preview.rows}
          count={preview.shown}
          state={state}
          findings={NO_FINDINGS}
          findingsPending
          onSort={onSort}
          now={now}
        />
      ) : loading ? (
        <p className="muted" aria-busy="true">
          Reading the cluster…
        </p>
      ) : (
        <HookTable
          rows={rows}
          count={rows.length}
          state={state}
          findings={counts}
          findingsPending={!findings}
          onSort={onSort}
          now={now}
        />
      )}
    </>
  );
}

const NO_FINDINGS: FindingCounts = {};
