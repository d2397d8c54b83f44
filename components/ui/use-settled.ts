"use client";

import { useEffect, useMemo, useState } from "react";

/**
 * The value of a promise a server component passed down (it resolves later in the same
 * response), without suspending: `settled` is false until it resolves or fails (a failure
 * settles with no value). The server render and hydration always see it unsettled, so they
 * agree; an undefined promise is settled from the start.
 *
 * The promise is read only after the browser has painted a frame of the page: reading it parses
 * its payload, and what the page then does with a large value (megabytes of cluster state) should
 * not hold back the first paint of what the HTML already shows.
 */
function useSettled<T>(promise: Promise<T> | undefined): {
  settled: boolean;
  value: T | undefined;
} {
  const [state, setState] = useState<{ from: Promise<T> | undefined; value: T | undefined }>({
    from: undefined,
    value: undefined,
  });
  useEffect(() => {
    if (!promise) return;
    let current = true;
    const read = () =>
      promise.then(
        (value) => current && setState({ from: promise, value }),
        () => current && setState({ from: promise, value: undefined }),
      );
    // A task queued from an animation frame runs after that frame has been painted.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => (timer = setTimeout(read, 0)));
    return () => {
      current = false;
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [promise]);
  return promise === undefined
    ? { settled: true, value: undefined }
    : { settled: state.from === promise, value: state.from === promise ? state.value : undefined };
}

/**
 * A page seed sent in two parts: `head` (who read it, what the cluster serves) in the first HTML,
 * and its collections as JSON arriving later in the same response. The seed is the head until the
 * JSON is read, then `complete(head, json)`; the head alone if the JSON is missing or malformed
 * (the page then reads the cluster itself). `pending` while the JSON is still on its way.
 * `complete` must be a stable function (declared at module level).
 */
export function useStreamedSeed<H extends object, S extends H>(
  head: H | undefined,
  collections: Promise<string | undefined> | undefined,
  complete: (head: H, json: string) => S,
): { seed: H | S | undefined; pending: boolean } {
  const rest = useSettled(collections);
  const seed = useMemo(() => {
    const json = rest.value;
    if (!head || !json) return head;
    try {
      return complete(head, json);
    } catch {
      return head;
    }
  }, [head, rest.value, complete]);
  return { seed, pending: !rest.settled };
}
