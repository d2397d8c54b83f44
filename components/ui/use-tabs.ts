"use client";

import { useId, type HTMLAttributes, type KeyboardEvent } from "react";

/**
 * Where a key moves the focus in a horizontal tab list of `count` tabs, from tab `current`
 * (WAI-ARIA tabs pattern): Left and Right step and wrap around, Home and End go to the first and
 * last tab. Undefined for any other key, which the tab list leaves alone.
 */
export function tabKeyTarget(key: string, current: number, count: number): number | undefined {
  if (count <= 0) return undefined;
  switch (key) {
    case "ArrowRight":
      return (current + 1) % count;
    case "ArrowLeft":
      return (current - 1 + count) % count;
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return undefined;
  }
}

export interface Tabs<T extends string> {
  /** Spread on the element with role="tablist" (give it an aria-label too). */
  list: HTMLAttributes<HTMLElement> & { role: "tablist" };
  /** Spread on each tab's button. */
  tab: (id: T) => HTMLAttributes<HTMLButtonElement> & {
    id: string;
    role: "tab";
    type: "button";
    tabIndex: number;
  };
  /** Spread on each tab's panel: it is hidden while its tab is not selected. */
  panel: (id: T) => HTMLAttributes<HTMLElement> & { id: string; role: "tabpanel" };
}

/**
 * The WAI-ARIA tabs pattern for a tab list whose tabs are `ids` in the order shown: arrow keys,
 * Home and End move the focus and select the tab they reach (its panel shows at once); only the
 * selected tab is in the Tab order (roving tabindex); each tab names the panel it controls and
 * each panel is labelled by its tab. Every tab list of the dashboard is made with it.
 */
export function useTabs<T extends string>(
  ids: readonly T[],
  selected: T,
  onSelect: (id: T) => void,
): Tabs<T> {
  const base = useId();
  const tabId = (id: T) => `${base}-tab-${id}`;
  const panelId = (id: T) => `${base}-panel-${id}`;
  return {
    list: {
      role: "tablist",
      onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
        if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        const tabs = Array.from(
          e.currentTarget.querySelectorAll<HTMLButtonElement>('[role="tab"]'),
        );
        const current = tabs.findIndex((t) => t === e.target);
        if (current < 0) return;
        const next = tabKeyTarget(e.key, current, tabs.length);
        const id = next === undefined ? undefined : ids[next];
        if (next === undefined || id === undefined) return;
        e.preventDefault();
        onSelect(id);
        tabs[next]?.focus();
      },
    },
    tab: (id: T) => ({
      id: tabId(id),
      role: "tab",
      type: "button",
      "aria-selected": id === selected,
      "aria-controls": panelId(id),
      tabIndex: id === selected ? 0 : -1,
      onClick: () => onSelect(id),
    }),
    panel: (id: T) => ({
      id: panelId(id),
      role: "tabpanel",
      "aria-labelledby": tabId(id),
      hidden: id !== selected,
    }),
  };
}
