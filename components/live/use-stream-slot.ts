"use client";

import { useEffect, useState } from "react";
import { browserStreamSlots, holdStreamSlot, type SlotState } from "@/lib/queries/stream-slots";

/**
 * One of the browser profile's few slots for a page's live stream (lib/queries/stream-slots.ts):
 * the stream opens while `held`. Undefined until the page has run in the browser, or while not
 * `enabled`.
 */
export function useStreamSlot(enabled: boolean): SlotState | undefined {
  const [slot, setSlot] = useState<SlotState | undefined>(undefined);
  useEffect(() => {
    if (!enabled) return;
    const stop = holdStreamSlot({ ...browserStreamSlots(), onState: setSlot });
    return () => {
      stop();
      setSlot(undefined);
    };
  }, [enabled]);
  return slot;
}
