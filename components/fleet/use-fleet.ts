"use client";

import { useEffect, useState } from "react";
import { streamUrl } from "@/lib/api/client";
import { fleetStreamRoute, type FleetStreamMessage } from "@/lib/api/fleet";
import { applyFleetMessage, EMPTY_FLEET, type FleetState } from "@/lib/fleet/state";
import { useStreamSlot } from "@/components/live/use-stream-slot";

/**
 * Whether the stream is open, reconnecting after a drop, or waiting for one of the browser's
 * slots for a live stream (lib/queries/stream-slots.ts).
 */
export type FleetLink = "connecting" | "live" | "reconnecting" | "waiting" | "background";

/**
 * The fleet as its stream tells it (Server-Sent Events from /api/fleet/stream): every row at
 * once as reading, each replaced as its cluster's read ends or its configuration changes. The
 * browser's EventSource reconnects by itself after a drop; the server then starts over.
 */
export function useFleet(context: string | undefined): { state: FleetState; link: FleetLink } {
  const [state, setState] = useState<FleetState>(EMPTY_FLEET);
  const [link, setLink] = useState<FleetLink>("connecting");
  const slot = useStreamSlot(context !== undefined);
  useEffect(() => {
    if (!context || !slot) return;
    if (slot !== "held") {
      setLink(slot);
      return;
    }
    setLink((s) => (s === "waiting" || s === "background" ? "connecting" : s));
    const source = new EventSource(streamUrl(fleetStreamRoute, { input: {} }, context));
    const on = (ev: MessageEvent<string>) => {
      let m: FleetStreamMessage;
      try {
        m = JSON.parse(ev.data) as FleetStreamMessage;
      } catch {
        return;
      }
      setState((s) => applyFleetMessage(s, m));
    };
    source.onopen = () => setLink("live");
    source.onerror = () => setLink("reconnecting");
    for (const type of ["fleet", "row", "settled"]) source.addEventListener(type, on);
    return () => source.close();
  }, [context, slot]);
  return { state, link };
}
