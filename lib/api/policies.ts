/** /api/policies: what admission policies' params resolve to, and a dry-run create to try them. */
import { z } from "zod";
import type { ParamsReport } from "@/lib/policies/params-model";
import type { TryResult } from "@/lib/policies/try-model";
import { route } from "./contract";

/**
 * What each policy binding's paramRef resolves to. (The browser names the collection versions it
 * asks for in `at`, a query the route does not read: a changed policy or binding is a new URL.)
 */
export const policyParamsRoute = route<ParamsReport>()({
  method: "GET",
  path: "/api/policies/params",
});

const tryRequestInput = z.object({
  object: z
    .object({
      apiVersion: z.string().min(1).max(253),
      kind: z.string().min(1).max(63),
      metadata: z.record(z.string(), z.unknown()).optional(),
    })
    .passthrough(),
});
export type TryRequestInput = z.input<typeof tryRequestInput>;

/** Dry-run create of any object as the request's identity: what admission would say, nothing stored. */
export const tryRequestRoute = route<TryResult>()({
  method: "POST",
  path: "/api/policies/try",
  input: tryRequestInput,
});
