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
 * The episodes (the banner's). Never polled: the banner follows /api/break-glass/stream
 * (break-glass-stream.ts) and invalidates this query on each change and each reconnection.
 */
export const breakGlassListQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.breakGlass(context),
    queryFn: ({ signal }) => callApi(breakGlassListRoute, { signal }),
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
