/** Query options and calls for admission test cases (the browser side of /api/admission-tests). */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import {
  caseListRoute,
  deleteCaseRoute,
  replayRoute,
  saveCaseRoute,
  type CaseOwnerRef,
  type ReplayInput,
  type ReplayResponse,
  type SaveCaseInput,
  type StoredCase,
} from "@/lib/api/admission-tests";

type OwnerResource = (typeof caseListRoute.input)["_zod"]["output"]["resource"];

/** Every kept-case query of a context and configuration (context second, as every key). */
export const caseListKey = (context: string, owner: CaseOwnerRef) =>
  ["admission-tests", context, owner.resource, owner.name] as const;

/** The cases kept for one configuration. */
export const caseListQuery = (context: string, owner: CaseOwnerRef) =>
  queryOptions({
    queryKey: caseListKey(context, owner),
    queryFn: ({ signal }) =>
      callApi(caseListRoute, {
        input: { resource: owner.resource as OwnerResource, name: owner.name },
        signal,
      }),
    retry: false,
  });

/** Keeps a case (from a decision, or one built here). */
export function saveCase(input: SaveCaseInput): Promise<StoredCase> {
  return callApi(saveCaseRoute, { input });
}

/** Forgets a kept case. */
export function deleteCase(id: number): Promise<{ deleted: true }> {
  return callApi(deleteCaseRoute, { params: { id: String(id) } });
}

/** Replays an edit against the kept cases and the feed's last requests for its hooks. */
export function replayEdit(input: ReplayInput, signal?: AbortSignal): Promise<ReplayResponse> {
  return callApi(replayRoute, { input, ...(signal ? { signal } : {}) });
}
