"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import type { DecisionFilter } from "@/lib/decisions/filter";
import { applyLiveBatch } from "@/lib/decisions/group";
import { decisionListQuery, filterQuery } from "@/lib/queries/decisions";
import {
  decisionStreamRoute,
  type DecisionListResponse,
  type DecisionStreamMessage,
} from "@/lib/api/decisions";
import { streamUrl } from "@/lib/api/client";
import { askAgainAfterMs } from "@/lib/queries/no-answer";
import { silenceTimer } from "@/lib/queries/stream-silence";
import { HEARTBEAT_EVENT } from "@/lib/api/streams";
import type { LiveState } from "@/components/live/use-live-collections";
import { useStreamSlot } from "@/components/live/use-stream-slot";

/** Most decisions the page keeps in memory. */
const KEEP = 2_000;
/** Most decisions held while paused (beyond that the page reloads on resume). */
const HOLD = 5_000;

export interface DecisionFeed {
  data: DecisionListResponse | undefined;
  error: Error | null;
  live: LiveState;
  paused: boolean;
  /** Decisions received while paused, not yet shown. */
  held: number;
  setPaused(p: boolean): void;
}

/**
 * The stored decisions for a filter, kept current from /api/decisions/stream: new decisions are
 * written into the query cache as they arrive (no polling). Paused, they are held and shown on
 * resume. A `resync` from the server (this tab fell behind) reloads the list.
 */
export function useDecisionFeed(
  context: string | undefined,
  filter: DecisionFilter,
  limit: number,
): DecisionFeed {
  const queryClient = useQueryClient();
  const options = decisionListQuery(context ?? "", filter, limit);
  const list = useQuery({ ...options, enabled: context !== undefined });
  const [live, setLive] = useState<LiveState>("connecting");
  const [paused, setPausedState] = useState(false);
  const pausedRef = useRef(false);
  const heldRef = useRef<DecisionRecord[]>([]);
  /** Stream openings refused in a row (the pause before the next grows with it). */
  const refusedRef = useRef(0);
  const [held, setHeld] = useState(0);
  const key = options.queryKey;
  const keyText = JSON.stringify(key);
  const ready = list.data !== undefined && !list.isFetching;
  const filterText = filterQuery(filter);
  const slot = useStreamSlot(context !== undefined);

  const apply = useCallback(
    (items: DecisionRecord[]) => {
      queryClient.setQueryData<DecisionListResponse>(key, (old) =>
        old ? applyLiveBatch(old, items, KEEP, filter.to === undefined) : old,
      );
    },
    // key is rebuilt every render; its JSON text names it.
    [queryClient, keyText, filter.to],
  );

  useEffect(() => {
    if (!context || !ready || !slot) return;
    if (slot !== "held") {
      setLive(slot);
      return;
    }
    // A slot just came: connecting, not still "waiting", until the stream opens.
    setLive((s) => (s === "waiting" || s === "background" ? "connecting" : s));
    // From the newest decision held: what came while this tab waited for a slot comes first.
    const current = queryClient.getQueryData<DecisionListResponse>(key);
    const after = current?.items[0]?.id ?? 0;
    const params = new URLSearchParams(filterText.replace(/^\?/, ""));
    params.set("after", String(after));
    const source = new EventSource(
      streamUrl(decisionStreamRoute, { query: params.toString() }, context),
    );
    let again: ReturnType<typeof setTimeout> | undefined;
    const reload = () => {
      quiet.stop();
      source.close();
      // The list read again holds what was held back during a pause.
      heldRef.current = [];
      setHeld(0);
      setLive("reconnecting");
      void queryClient.invalidateQueries({ queryKey: key });
    };
    // Nothing, not even a heartbeat, for too long: the connection is dead though it never closed
    // (see stream-silence.ts). Read the list again, which opens a new stream.
    const quiet = silenceTimer(reload);
    source.addEventListener(HEARTBEAT_EVENT, quiet.heard);
    source.onopen = () => {
      quiet.heard();
      refusedRef.current = 0;
      setLive("live");
    };
    source.addEventListener("decisions", (ev: MessageEvent<string>) => {
      quiet.heard();
      let msg: DecisionStreamMessage;
      try {
        msg = JSON.parse(ev.data) as DecisionStreamMessage;
      } catch {
        return;
      }
      if (pausedRef.current) {
        heldRef.current.push(...msg.items);
        if (heldRef.current.length > HOLD) heldRef.current.splice(0, heldRef.current.length - HOLD);
        setHeld(heldRef.current.length);
      } else apply(msg.items);
    });
    source.onerror = () => {
      setLive("reconnecting");
      // The browser reconnects by itself after a dropped connection, but gives up for good when
      // a reconnection is answered with an error (the dashboard could not reach the cluster to
      // check the reader's access, or was restarted while it could not): read the list again
      // after a growing pause, which opens a new stream once the cluster answers.
      if (source.readyState !== EventSource.CLOSED) return;
      quiet.stop();
      again = setTimeout(reload, askAgainAfterMs(++refusedRef.current));
    };
    source.addEventListener("resync", reload);
    source.addEventListener("forbidden", reload);
    return () => {
      clearTimeout(again);
      quiet.stop();
      source.close();
    };
    // Reconnect when the identity or the filter changes, or after a reload; not on every batch.
  }, [context, filterText, ready, apply, queryClient, slot]);

  const setPaused = useCallback(
    (p: boolean) => {
      pausedRef.current = p;
      setPausedState(p);
      if (!p) {
        const items = heldRef.current.splice(0);
        setHeld(0);
        if (items.length >= HOLD) void queryClient.invalidateQueries({ queryKey: key });
        else if (items.length > 0) apply(items);
      }
    },
    [apply, queryClient, keyText],
  );

  return { data: list.data, error: list.error, live, paused, held, setPaused };
}
