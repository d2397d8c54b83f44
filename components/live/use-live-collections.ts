"use client";

import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { refToString, parseRef, type ResourceRef } from "@/lib/k8s/resources";
import {
  applyLiveMessages,
  type CollectionData,
  type LiveMessage,
} from "@/lib/queries/collections";
import { queryKeys } from "@/lib/queries/keys";
import { liveBatcher } from "@/lib/queries/live-batch";
import { withContext } from "@/lib/queries/fetch";

export type LiveState = "connecting" | "live" | "reconnecting";

/**
 * Keeps the named collections in the query cache current from /api/watch (Server-Sent Events):
 * no polling. Returns the stream's state for a small indicator.
 */
export function useLiveCollections(context: string | undefined, refs: ResourceRef[]): LiveState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");
  const param = refs.map((r) => `r=${encodeURIComponent(refToString(r))}`).join("&");

  useEffect(() => {
    if (!context || !param) return;
    // The resourceVersion each collection is held at (e.g. the server-rendered seed's): the
    // stream then answers CURRENT instead of sending the same snapshot again.
    const held = param
      .split("&")
      .map((p) => {
        const ref = parseRef(decodeURIComponent(p.slice(2)));
        const data = ref
          ? queryClient.getQueryData<CollectionData>(queryKeys.collection(context, ref))
          : undefined;
        return `rv=${encodeURIComponent(data?.resourceVersion ?? "")}`;
      })
      .join("&");
    const source = new EventSource(withContext(`/api/watch?${param}&${held}`, context));
    source.onopen = () => setState("live");
    source.onerror = () => setState("reconnecting");
    // Applied about once a frame, one cache write per collection (see live-batch.ts).
    const batcher = liveBatcher((batch) => {
      for (const [collection, msgs] of batch) {
        const ref = parseRef(collection);
        if (!ref) continue;
        queryClient.setQueryData<CollectionData>(queryKeys.collection(context, ref), (old) =>
          applyLiveMessages(old, msgs),
        );
      }
    });
    source.onmessage = (ev: MessageEvent<string>) => {
      let msg: LiveMessage;
      try {
        msg = JSON.parse(ev.data) as LiveMessage;
      } catch {
        return;
      }
      batcher.push(msg);
    };
    return () => {
      source.close();
      batcher.stop();
    };
  }, [context, param, queryClient]);

  return state;
}
