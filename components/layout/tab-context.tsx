"use client";

import { useQuery } from "@tanstack/react-query";
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from "react";
import { contextsQuery, rememberContext } from "@/lib/queries/contexts";
import { setTabContext } from "@/lib/api/client";
import { CONTEXT_PARAM } from "@/lib/http/context";

interface TabContextValue {
  /** The kubeconfig context this tab shows and acts as; undefined when there is no kubeconfig. */
  context: string | undefined;
  /** Switches this tab (and remembers the choice as where new tabs start). */
  setContext: (context: string) => void;
  /** Why the kubeconfig's contexts could not be read (no kubeconfig, …), if so. */
  error: Error | null;
}

const TabContext = createContext<TabContextValue>({
  context: undefined,
  setContext: () => {},
  error: null,
});

/** Survives reloads of this tab only; the cookie chooses where a new tab starts. */
const STORAGE_KEY = "portcullis-context";

/**
 * Holds the context this browser tab acts as. It starts from the server's choice (the cookie,
 * else the default), is kept across reloads of this tab in sessionStorage, and is named by
 * every API request the tab sends, so two tabs on two contexts never act as each other.
 */
export function TabContextProvider({
  initial,
  children,
}: {
  initial: string | undefined;
  children: ReactNode;
}) {
  const contexts = useQuery(contextsQuery());
  // This tab's own choice, kept across its reloads; null while rendering on the server.
  const saved = useSyncExternalStore(subscribeToNothing, readSaved, () => null);
  // A page opened for one context (`?context=NAME`, the fleet page's links): this tab acts as it.
  const asked = useSyncExternalStore(subscribeToNothing, readAsked, () => null);
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const names = contexts.data?.contexts.map((c) => c.name);
  const context =
    chosen ??
    (asked && names?.includes(asked) ? asked : undefined) ??
    (saved && names?.includes(saved) ? saved : initial);
  // Before any query of this render runs (they run after it), so callApi names this context.
  if (typeof window !== "undefined") setTabContext(context);

  useEffect(() => {
    // A tab that never switched keeps the context it started with when it is reloaded. Read
    // storage here, not `saved`: while hydrating, `saved` is still the server's null.
    if (context && (!readSaved() || context === readAsked())) writeSaved(context);
  }, [context]);

  const setContext = useCallback((next: string) => {
    setTabContext(next);
    writeSaved(next);
    setChosen(next);
    void rememberContext(next).catch(() => {});
  }, []);

  const value = useMemo(
    () => ({ context, setContext, error: contexts.error }),
    [context, setContext, contexts.error],
  );
  return <TabContext.Provider value={value}>{children}</TabContext.Provider>;
}

function subscribeToNothing(): () => void {
  return () => {};
}

function readAsked(): string | null {
  try {
    return new URLSearchParams(window.location.search).get(CONTEXT_PARAM);
  } catch {
    return null;
  }
}

function readSaved(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function writeSaved(context: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, context);
  } catch {
    // storage disabled: the tab still acts as its context until it is reloaded
  }
}

/** The context this tab acts as (see TabContextProvider). */
export function useTabContext(): TabContextValue {
  return useContext(TabContext);
}
