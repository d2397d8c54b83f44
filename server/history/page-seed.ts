/**
 * The history pages' first screens, read on the server while the page renders, so the newest
 * changes are in the page's first HTML instead of after hydration and a round trip: the newest
 * changes of one object's timeline (a first screen of them, TIMELINE_FIRST_SCREEN, with their
 * diffs), and the first page of the recent
 * changes for the URL's filter. The rest loads on demand from the API, as before.
 *
 * The same checks as the API's: the identity the page renders as (the starting context, or in
 * shared mode the session's user) must be allowed to read decisions, and its context's watch is
 * started (waiting briefly for its first list) before the store is read. Anything that fails or
 * takes too long gives no seed: the browser then reads the API itself and reports what went
 * wrong as before.
 */
import "server-only";
import { headers } from "next/headers";
import type { HistoryKind } from "@/lib/admission/history/kinds";
import type { RecentFilter } from "@/lib/admission/history/recent-filter";
import {
  RECENT_PAGE,
  TIMELINE_FIRST_SCREEN,
  type RecentChangesSeed,
  type TimelineResponse,
  type TimelineSeed,
} from "@/lib/api/history";
import { DECISIONS_URL } from "@/server/audit/access";
import { sessionClient } from "@/server/auth/session-client";
import { canIPath } from "@/server/kube/access";
import { kubeClientFor } from "@/server/kube/client";
import { isSharedMode } from "@/server/kube/config";
import { sessionIdOf, startingContext } from "@/server/kube/identity";
import { historyStore } from "./instance";
import { clusterFilter, recentChanges, startWatching, timelineOf } from "./service";
import type { HistoryStore } from "./store";

/** What a seed reads with: the identity's context, its access check, its watch and the store. */
export interface SeedAccess {
  context: string;
  /** Whether the identity may read decisions (and so the changes, which carry who made them). */
  mayRead: (signal: AbortSignal) => Promise<boolean>;
  /** Starts recording the context from the watch (once per process). */
  watch: () => Promise<void>;
  store: () => Promise<HistoryStore>;
  now?: () => number;
}

/**
 * Longest the page waits for its seed: a cold process starts the watch first (bounded by its own
 * 3 s); otherwise an access review and two indexed reads.
 */
const BUDGET_MS = 4_000;

async function withBudget<T>(
  make: (signal: AbortSignal) => Promise<T | undefined>,
  ms: number,
): Promise<T | undefined> {
  const signal = AbortSignal.timeout(ms);
  const late = new Promise<undefined>((resolve) =>
    signal.addEventListener("abort", () => resolve(undefined), { once: true }),
  );
  try {
    return await Promise.race([make(signal), late]);
  } catch {
    return undefined;
  }
}

/** The first page without the changes' objects (see TimelineSeed). */
function withoutObjects(page: TimelineResponse): TimelineResponse {
  return {
    ...page,
    entries: page.entries.map((e) =>
      e.change.object === undefined ? e : { ...e, change: { ...e.change, object: {} } },
    ),
  };
}

/** The newest changes of one object's timeline for `access`'s identity; undefined when not allowed. */
export async function timelineSeedWith(
  access: SeedAccess,
  kind: HistoryKind,
  name: string,
  budgetMs = BUDGET_MS,
): Promise<TimelineSeed | undefined> {
  return withBudget(async (signal) => {
    if (!(await access.mayRead(signal))) return undefined;
    await access.watch();
    const at = (access.now ?? Date.now)();
    const page = await timelineOf(
      kind,
      name,
      { limit: TIMELINE_FIRST_SCREEN },
      await access.store(),
    );
    return { context: access.context, at, page: withoutObjects(page) };
  }, budgetMs);
}

/** The newest page of the recent changes matching `filter`; undefined when not allowed. */
export async function recentChangesSeedWith(
  access: SeedAccess,
  filter: RecentFilter,
  budgetMs = BUDGET_MS,
): Promise<RecentChangesSeed | undefined> {
  return withBudget(async (signal) => {
    if (!(await access.mayRead(signal))) return undefined;
    await access.watch();
    const at = (access.now ?? Date.now)();
    // As the API reads its parameters (trimmed; too long is refused there, so no seed here).
    const actor = filter.actor?.trim();
    const name = filter.name?.trim();
    if (
      (actor?.length ?? 0) > 1024 ||
      (name?.length ?? 0) > 253 ||
      (filter.cluster?.trim().length ?? 0) > 253
    )
      return undefined;
    const page = await recentChanges(
      {
        actor: actor || undefined,
        kind: filter.kind,
        name: name || undefined,
        ...clusterFilter(filter.cluster?.trim()),
      },
      { limit: RECENT_PAGE },
      await access.store(),
    );
    return { context: access.context, at, page, filter };
  }, budgetMs);
}

/** The page request's identity, as the API's routes act for it (clientFor). */
async function requestAccess(): Promise<SeedAccess> {
  const h = await headers();
  const context = startingContext(h);
  const client = isSharedMode() ? sessionClient(sessionIdOf(h)) : kubeClientFor(context);
  return {
    context,
    mayRead: (signal) => canIPath(client, { path: DECISIONS_URL, verb: "get" }, signal),
    watch: () => startWatching(context),
    store: historyStore,
  };
}

/** The timeline's first screen for the page being rendered (undefined: the browser reads it). */
export async function timelineSeed(
  kind: HistoryKind,
  name: string,
): Promise<TimelineSeed | undefined> {
  try {
    return await timelineSeedWith(await requestAccess(), kind, name);
  } catch {
    return undefined;
  }
}

/** The recent changes' first screen for the page being rendered and its URL's filter. */
export async function recentChangesSeed(
  filter: RecentFilter,
): Promise<RecentChangesSeed | undefined> {
  try {
    return await recentChangesSeedWith(await requestAccess(), filter);
  } catch {
    return undefined;
  }
}
