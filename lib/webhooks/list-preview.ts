/**
 * The webhook list's first screen, cut on the server from the rows it already has, so the list
 * paints from the page's first bytes of HTML and hydrates without the cluster's configurations
 * (which follow, megabytes at 10,000 hooks). It travels in the page's payload packed: every
 * distinct text once, each row as numbers. Pure.
 */
import { applyListState, configRows, listStateQuery, type ListState } from "./list-filter";
import type { HookRow } from "./summary";

/**
 * One row: indexes into PackedListPreview.strings for its texts, numbers as they are:
 * [id, kind, resource, configuration, hook, position, hookCount, failurePolicy, timeoutSeconds,
 * sideEffects, matchPolicy, reinvocationPolicy (-1: none), rules, namespaceSelector,
 * objectSelector, backend, caNotAfter, defaulted flags (see DEFAULTED)].
 */
export type PackedRow = readonly [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];

/** What a first screen says of the whole list, packed or not. */
interface ListPreviewHead {
  /** The list state it was cut for (listStateQuery). */
  readonly params: string;
  /** Rows the whole list shows for the state, and before search and filters. */
  readonly shown: number;
  readonly total: number;
  /** Configurations per served kind, in the order the header lists them. */
  readonly kinds: ReadonlyArray<readonly [string, number]>;
}

/** The first rows of the list as the page's payload carries them. */
export interface PackedListPreview extends ListPreviewHead {
  readonly strings: readonly string[];
  readonly rows: readonly PackedRow[];
}

/** The first screen unpacked. */
export interface ListPreview extends ListPreviewHead {
  readonly rows: readonly HookRow[];
}

/** The list's rows are this tall (px), all of them. */
export const LIST_ROW_HEIGHT = 26;
/** The table's height assumed before it is measured (server render, hydration). */
export const LIST_INITIAL_HEIGHT = 720;
/** Rows rendered beyond either edge of the table's view. */
export const LIST_OVERSCAN = 12;
/**
 * The rows the server sends for the first screen: what fits the table before it is measured, no
 * overscan (every row's text is laid out, and in a fresh page the first layout is most of the
 * time to the first paint; the overscan rows come with the whole list, before anyone can scroll).
 */
export const FIRST_SCREEN_ROWS = Math.ceil(LIST_INITIAL_HEIGHT / LIST_ROW_HEIGHT);

/** Which of a row's values came from the v1 default (bits of the row's last field). */
const DEFAULTED = { failurePolicy: 1, timeoutSeconds: 2, matchPolicy: 4, reinvocation: 8 };

/**
 * Whether the server can cut the first screen for a state: sorting or filtering by findings needs
 * the linter, which runs in the browser after load.
 */
export function previewable(state: ListState): boolean {
  return state.sort !== "findings" && !state.findings;
}

/** Packs rows (already filtered, sorted and cut to the first screen). */
export function packRows(rows: readonly HookRow[]): {
  strings: string[];
  rows: PackedRow[];
} {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const s = (text: string) => {
    let i = index.get(text);
    if (i === undefined) {
      i = strings.push(text) - 1;
      index.set(text, i);
    }
    return i;
  };
  const packed = rows.map((r): PackedRow => [
    s(r.id),
    s(r.kind),
    s(r.resource),
    s(r.configuration),
    s(r.hook),
    r.position,
    r.hookCount,
    s(r.failurePolicy.value),
    r.timeoutSeconds.value,
    s(r.sideEffects),
    s(r.matchPolicy.value),
    r.reinvocationPolicy ? s(r.reinvocationPolicy.value) : -1,
    s(r.rules),
    s(r.namespaceSelector),
    s(r.objectSelector),
    s(r.backend),
    s(r.caNotAfter),
    (r.failurePolicy.defaulted ? DEFAULTED.failurePolicy : 0) |
      (r.timeoutSeconds.defaulted ? DEFAULTED.timeoutSeconds : 0) |
      (r.matchPolicy.defaulted ? DEFAULTED.matchPolicy : 0) |
      (r.reinvocationPolicy?.defaulted ? DEFAULTED.reinvocation : 0),
  ]);
  return { strings, rows: packed };
}

/**
 * The first `max` rows the list shows for `state` (without findings: see previewable), out of
 * every hook row, packed with the counts the toolbar and header show.
 */
export function listPreview(
  all: readonly HookRow[],
  state: ListState,
  kinds: ReadonlyArray<readonly [string, number]>,
  max: number,
): PackedListPreview {
  const view = state.view === "configs" ? configRows(all) : all;
  const rows = applyListState(view, state, {});
  return {
    params: listStateQuery(state),
    shown: rows.length,
    total: view.length,
    kinds,
    ...packRows(rows.slice(0, max)),
  };
}

/** Unpacks the first screen; throws on a malformed one. */
export function unpackListPreview(p: PackedListPreview): ListPreview {
  const text = (i: number): string => {
    const t = p.strings[i];
    if (t === undefined) throw new Error(`no text ${i} in the list's first screen`);
    return t;
  };
  const rows = p.rows.map((r): HookRow => {
    if (r.length !== 18) throw new Error(`a row of ${r.length} values, not 18`);
    const [id, kind, resource, configuration, hook, position, hookCount, fp, timeout] = r;
    const [, , , , , , , , , sideEffects, mp, reinvocation, rules, ns, obj, backend, ca, flags] = r;
    return {
      id: text(id),
      kind: text(kind),
      resource: text(resource),
      configuration: text(configuration),
      hook: text(hook),
      position,
      hookCount,
      failurePolicy: { value: text(fp), defaulted: (flags & DEFAULTED.failurePolicy) !== 0 },
      timeoutSeconds: { value: timeout, defaulted: (flags & DEFAULTED.timeoutSeconds) !== 0 },
      sideEffects: text(sideEffects),
      matchPolicy: { value: text(mp), defaulted: (flags & DEFAULTED.matchPolicy) !== 0 },
      reinvocationPolicy:
        reinvocation === -1
          ? undefined
          : { value: text(reinvocation), defaulted: (flags & DEFAULTED.reinvocation) !== 0 },
      rules: text(rules),
      namespaceSelector: text(ns),
      objectSelector: text(obj),
      backend: text(backend),
      caNotAfter: text(ca),
    };
  });
  return { params: p.params, shown: p.shown, total: p.total, kinds: p.kinds, rows };
}
