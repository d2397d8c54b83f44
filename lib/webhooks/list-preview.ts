import { refToString } from "@/lib/k8s/resources";
import { servedHookKinds } from "./hook-kinds";
import { hookRows, type HookRow } from "./summary";
import { applyListState, configRows, parseListState, type ListState } from "./list-filter";
import type { CollectionData } from "@/lib/queries/kube-list";
import type { OverviewData } from "@/lib/queries/overview";
import type { ConfigLike } from "./summary";

/** The webhook list's first screen, as the page will show it for the URL's view state. */
export interface WebhookListPreview {
  state: ListState;
  /** The first rows after the URL's filters and sort. */
  rows: HookRow[];
  shown: number;
  total: number;
  kinds: Array<{ kind: string; count: number }>;
}

/** Enough rows for a tall screen; the table renders those in view. */
const FIRST_ROWS = 60;

/**
 * The list's first screen, computed on the server with the same code the browser runs, so it
 * is in the HTML ahead of the seed (megabytes at 10,000 hooks) that the live list starts from.
 * Undefined without a seed, or when the view needs the linter's findings (it runs in the browser).
 */
export function webhookListPreview(
  seed:
    | {
        overview: Pick<OverviewData, "apis">;
        collections: Record<string, CollectionData<ConfigLike>>;
      }
    | undefined,
  search: Record<string, string | string[] | undefined>,
): WebhookListPreview | undefined {
  if (!seed) return undefined;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) if (typeof v === "string") q.set(k, v);
  const state = parseListState(q);
  if (state.findings || state.sort === "findings") return undefined;
  const kinds = servedHookKinds(seed.overview.apis).flatMap((k) =>
    k.readAt
      ? [
          {
            kind: k.known.kind,
            resource: k.known.resource,
            items: seed.collections[refToString(k.readAt)]?.items ?? [],
          },
        ]
      : [],
  );
  const all = kinds.flatMap((k) => hookRows(k.items, k.resource));
  const view = state.view === "configs" ? configRows(all) : all;
  const rows = applyListState(view, state, {});
  return {
    state,
    rows: rows.slice(0, FIRST_ROWS),
    shown: rows.length,
    total: view.length,
    kinds: kinds.map((k) => ({ kind: k.kind, count: k.items.length })),
  };
}
