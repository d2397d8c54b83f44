"use client";

import { useEffect, useMemo, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { refToString, parseRef, type ResourceRef } from "@/lib/k8s/resources";
import { applyLiveMessages, nextLiveProblems, type LiveProblem } from "@/lib/queries/collections";
import type { CollectionData } from "@/lib/api/kube-list";
import { watchRoute, type LiveMessage } from "@/lib/api/resources";
import { queryKeys } from "@/lib/queries/keys";
import { liveBatcher } from "@/lib/queries/live-batch";
import { streamUrl } from "@/lib/api/client";
import { askAgainAfterMs } from "@/lib/queries/no-answer";
import { silenceTimer } from "@/lib/queries/stream-silence";
import { HEARTBEAT_EVENT } from "@/lib/api/streams";
import { useStreamSlot } from "./use-stream-slot";

/**
 * A live stream's state: `stale` when the stream is open but the dashboard's own watch of a
 * collection is failing (the cluster is unreachable, the watch was refused): what the page shows
 * is what was last seen. `waiting` while the browser's other tabs hold every slot for a live
 * stream, `background` when this hidden tab gave its slot to one of them
 * (lib/queries/stream-slots.ts).
 */
export type LiveState = "connecting" | "live" | "reconnecting" | "stale" | "waiting" | "background";

/** A live stream's state for its indicator, with the failing watch's error when `stale`. */
export interface LiveStatus {
  state: LiveState;
  problem?: LiveProblem;
}

const NO_PROBLEMS: ReadonlyMap<string, LiveProblem> = new Map();

/**
 * Keeps the named collections in the query cache current from /api/watch (Server-Sent Events):
 * no polling. Returns the stream's state for a small indicator (see LiveIndicator).
 */
export function useLiveCollections(context: string | undefined, refs: ResourceRef[]): LiveStatus {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");
  const [problems, setProblems] = useState(NO_PROBLEMS);
  const param = refs.map((r) => `r=${encodeURIComponent(refToString(r))}`).join("&");
  const slot = useStreamSlot(Boolean(context && param));

  useEffect(() => {
    if (!context || !param || !slot) return;
    if (slot !== "held") {
      setState(slot);
      return;
    }
    // The resourceVersion each collection is held at (e.g. the server-rendered seed's): the
    // stream then answers CURRENT instead of sending the same snapshot again.
    const heldNow = () =>
      param
        .split("&")
        .map((p) => {
          const ref = parseRef(decodeURIComponent(p.slice(2)));
          const data = ref
            ? queryClient.getQueryData<CollectionData>(queryKeys.collection(context, ref))
            : undefined;
          return `rv=${encodeURIComponent(data?.resourceVersion ?? "")}`;
        })
        .join("&");
    // Applied about once a frame, one cache write per collection (see live-batch.ts).
    const batcher = liveBatcher((batch) => {
      for (const [collection, msgs] of batch) {
        setProblems((p) => nextLiveProblems(p, collection, msgs));
        const ref = parseRef(collection);
        if (!ref) continue;
        queryClient.setQueryData<CollectionData>(queryKeys.collection(context, ref), (old) =>
          applyLiveMessages(old, msgs),
        );
      }
    });
    let source: EventSource | undefined;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let refused = 0;
    let silence: ReturnType<typeof silenceTimer> | undefined;
    const open = () => {
      const s = new EventSource(streamUrl(watchRoute, { query: `${param}&${heldNow()}` }, context));
      source = s;
      // Nothing, not even a heartbeat, for too long: the connection is dead though it never
      // closed (see stream-silence.ts). Open a new one; the page is not live meanwhile.
      const quiet = silenceTimer(() => {
        s.close();
        setState("reconnecting");
        open();
      });
      silence = quiet;
      s.addEventListener(HEARTBEAT_EVENT, quiet.heard);
      // Each (re)connection starts from the hub's word on every collection (a snapshot, or the
      // error its watch is failing with).
      s.onopen = () => {
        quiet.heard();
        refused = 0;
        setState("live");
        setProblems(NO_PROBLEMS);
      };
      s.onerror = () => {
        setState("reconnecting");
        // The browser reconnects by itself after a dropped connection, but gives up for good
        // when a reconnection is answered with an error (the dashboard could not reach the
        // cluster to check the collections, or was restarted while it could not): open it
        // again after a growing pause, so the page goes live once the cluster answers.
        if (s.readyState !== EventSource.CLOSED) return;
        quiet.stop();
        s.close();
        reopen = setTimeout(open, askAgainAfterMs(++refused));
      };
      s.onmessage = (ev: MessageEvent<string>) => {
        quiet.heard();
        let msg: LiveMessage;
        try {
          msg = JSON.parse(ev.data) as LiveMessage;
        } catch {
          return;
        }
        batcher.push(msg);
      };
    };
    // A slot just came: connecting, not still "waiting", until the stream opens.
    setState((s) => (s === "waiting" || s === "background" ? "connecting" : s));
    open();
    return () => {
      clearTimeout(reopen);
      silence?.stop();
      source?.close();
      batcher.stop();
    };
  }, [context, param, queryClient, slot]);

  return useMemo(() => {
    const problem = problems.values().next().value;
    return state === "live" && problem ? { state: "stale", problem } : { state };
  }, [state, problems]);
}
