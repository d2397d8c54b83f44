/** Break-glass in the browser: the episodes (the banner's), a preview, start and revert. */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import {
  breakGlassListRoute,
  breakGlassPreviewRoute,
  breakGlassRevertRoute,
  breakGlassStartRoute,
} from "@/lib/api/break-glass";
import type { BreakGlassMode, BreakGlassResource } from "@/lib/admission/break-glass/record";
import type { z } from "zod";
import { queryKeys } from "./keys";

/**
 * How often the banner reads the episodes again. Episodes are few and start or end on any
 * replica, by anyone: a short re-read keeps every tab's banner true without a stream of its own.
 */
const BREAK_GLASS_REREAD_MS = 5_000;

export const breakGlassListQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.breakGlass(context),
    queryFn: ({ signal }) => callApi(breakGlassListRoute, { signal }),
    refetchInterval: BREAK_GLASS_REREAD_MS,
    retry: false,
  });

export const breakGlassPreviewQuery = (
  context: string,
  resource: BreakGlassResource,
  name: string,
  hook: string | undefined,
  mode: BreakGlassMode,
) =>
  queryOptions({
    queryKey: queryKeys.breakGlassPreview(context, resource, name, hook ?? "", mode),
    queryFn: ({ signal }) =>
      callApi(breakGlassPreviewRoute, {
        input: { resource, name, mode, ...(hook ? { hook } : {}) },
        signal,
      }),
    retry: false,
  });

export function startBreakGlass(input: z.input<typeof breakGlassStartRoute.input>) {
  return callApi(breakGlassStartRoute, { input });
}

export function revertBreakGlass(id: string, answer: { force?: string[]; keep?: boolean } = {}) {
  return callApi(breakGlassRevertRoute, { params: { id }, input: answer });
}
