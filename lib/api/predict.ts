/**
 * /api/predict: the admission state the predict page predicts from (read once, predicted from in
 * the browser), objects picked from the cluster, and the apiserver's own verdict on a dry run.
 */
import { z } from "zod";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import type { RequestUserInfo } from "@/lib/admission/model/request";
import type { AdmissionOperation } from "@/lib/k8s/types";
import { route } from "./contract";

/** GET /api/predict/state */
export interface PredictStateData {
  context: string;
  snapshot: AdmissionSnapshot;
  identity: RequestUserInfo | undefined;
  /**
   * Which policy engine owns each hook, admission policy and binding, and the engine policy it
   * carries (read with the engines' policies the identity may list); absent when no engine owns
   * any, so calls name their engine policy only where one is known.
   */
  ownership?: EngineOwnershipIndex;
  notices: string[];
}

export const predictStateRoute = route<PredictStateData>()({
  method: "GET",
  path: "/api/predict/state",
});

/** GET /api/predict/object?resource=G/V/R&namespace=NS[&name=N]: one object, or the names. */
export type PickData =
  | { kind: "names"; names: string[]; truncated: boolean }
  | { kind: "object"; object: Record<string, unknown> };

/** A Kubernetes name as the picker accepts it (and a resource reference's parts). */
export const NAME = /^[A-Za-z0-9]([-A-Za-z0-9._:]*[A-Za-z0-9])?$/;

/** The query of GET /api/predict/object. */
export const pickInput = z.object({
  resource: z.string().max(400),
  namespace: z.union([z.literal(""), z.string().max(63).regex(NAME)]),
  name: z
    .string()
    .max(253)
    .regex(NAME)
    .refine((s) => !s.includes(".."))
    .optional(),
});

export const pickObjectRoute = route<PickData>()({
  method: "GET",
  path: "/api/predict/object",
  input: pickInput,
});

/** POST /api/predict/dry-run body. */
export interface DryRunInput {
  operation: AdmissionOperation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** "" when cluster-scoped. */
  namespace: string;
  name: string;
  object: Record<string, unknown> | null;
}

const segment = z
  .string()
  .max(253)
  .regex(/^[A-Za-z0-9]([-A-Za-z0-9._:]*[A-Za-z0-9])?$/, "must be a Kubernetes name")
  .refine((s) => !s.includes(".."), "must be a Kubernetes name");
const optionalSegment = z.union([z.literal(""), segment]);

/** The body of POST /api/predict/dry-run. */
const dryRunInput = z.object({
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  group: optionalSegment,
  version: segment,
  resource: segment,
  subresource: optionalSegment,
  namespace: optionalSegment,
  name: optionalSegment,
  object: z.record(z.string(), z.unknown()).nullable(),
}) satisfies z.ZodType<DryRunInput>;

/**
 * The apiserver's verdict on a server-side dry run; `auditID` names the request's audit event
 * (the dashboard sent it as the request's Audit-ID).
 */
export type DryRunVerdict =
  | { outcome: "allowed"; status: number; warnings: string[]; auditID: string }
  | {
      outcome: "denied" | "error";
      status: number;
      reason: string;
      message: string;
      warnings: string[];
      auditID: string;
    }
  | { outcome: "unsupported"; message: string; warnings: string[] };

/** Sends a request as a server-side dry run as the request's identity; answers the verdict. */
export const dryRunRoute = route<DryRunVerdict>()({
  method: "POST",
  path: "/api/predict/dry-run",
  input: dryRunInput,
});
