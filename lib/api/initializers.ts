/** /api/initializers/uninitialized: objects still waiting for initializers (1.7–1.13 apiservers). */
import { z } from "zod";
import {
  DEFAULT_STUCK_AFTER_SECONDS,
  type CoveredCollection,
  type UninitializedReport,
} from "@/lib/admission/historical/uninitialized";
import { route } from "./contract";

/** GET /api/initializers/uninitialized?stuckAfterSeconds=N */
export type UninitializedData =
  | {
      /** The real admissionregistration.k8s.io/v1alpha1 API does not serve InitializerConfiguration. */
      served: false;
      reason: string;
    }
  | {
      served: true;
      /** When the lists were read (ISO time): ages are as of then. */
      readAt: string;
      stuckAfterSeconds: number;
      /** The collections listed with `?includeUninitialized=true`. */
      covered: CoveredCollection[];
      report: UninitializedReport;
      /** What could not be read. */
      notices: string[];
    };

export const uninitializedRoute = route<UninitializedData>()({
  method: "GET",
  path: "/api/initializers/uninitialized",
  input: z.object({
    stuckAfterSeconds: z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .default(DEFAULT_STUCK_AFTER_SECONDS),
  }),
});
