/**
 * /api/admission-tests: the admission test cases the dashboard keeps per configuration (saved
 * from a decision or a Predict result), and the replay of an edit against them and against the
 * last requests the decision feed holds for the hooks being edited.
 */
import { z } from "zod";
import type { TestCase } from "@/lib/admission/testing/format";
import type { ReplayResult } from "@/lib/replay/replay-result";
import { route } from "./contract";

/** The configuration a case is kept for: a webhook configuration or an admission policy. */
export interface CaseOwnerRef {
  /** `validatingwebhookconfigurations`, `mutatingadmissionpolicies`, … */
  resource: string;
  name: string;
}

/** A kept case. */
export interface StoredCase {
  id: number;
  context: string;
  owner: CaseOwnerRef;
  created: number;
  case: TestCase;
}

const OWNER_RESOURCES = [
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "mutatingadmissionpolicies",
] as const;

const ownerSchema = z.strictObject({
  resource: z.enum(OWNER_RESOURCES),
  name: z.string().min(1).max(253),
});

/** GET /api/admission-tests?resource=R&name=N: the cases kept for one configuration. */
export interface CaseListResponse {
  cases: StoredCase[];
}

export const caseListRoute = route<CaseListResponse>()({
  method: "GET",
  path: "/api/admission-tests",
  input: ownerSchema,
});

/**
 * POST /api/admission-tests: keep a case. From a decision (`decision`: its id): the server builds
 * the case from the decision's audit event, the namespace's labels it knows and the prediction,
 * and keeps it for the decision's webhook configuration or policy (or `owner`). From a case
 * already built (a Predict result): kept for `owner`.
 */
const saveCaseInput = z.union([
  z.strictObject({
    decision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    owner: ownerSchema.optional(),
  }),
  // Checked against the test file format by the server (kept apart: the format's module is not
  // loaded by the pages that only call this route).
  z.strictObject({ case: z.record(z.string(), z.unknown()), owner: ownerSchema }),
]);

export type SaveCaseInput =
  | { decision: number; owner?: z.infer<typeof ownerSchema> }
  | { case: TestCase; owner: z.infer<typeof ownerSchema> };

export const saveCaseRoute = route<StoredCase>()({
  method: "POST",
  path: "/api/admission-tests",
  input: saveCaseInput,
});

/** GET /api/admission-tests/{id}: one kept case. */
export const caseRoute = route<StoredCase>()({
  method: "GET",
  path: "/api/admission-tests/[id]",
});

/** DELETE /api/admission-tests/{id}: forget a kept case. */
export const deleteCaseRoute = route<{ deleted: true }>()({
  method: "DELETE",
  path: "/api/admission-tests/[id]",
});

/** Most feed requests one replay predicts again. */
export const MAX_REPLAY_REQUESTS = 10_000;

/** POST /api/admission-tests/replay body: the edited object of the configuration. */
const replayInput = z.strictObject({
  resource: z.enum([
    "mutatingwebhookconfigurations",
    "validatingwebhookconfigurations",
    "validatingadmissionpolicies",
    "validatingadmissionpolicybindings",
    "mutatingadmissionpolicies",
    "mutatingadmissionpolicybindings",
  ]),
  /** The stored object's name ("" when the edit creates one: then the edited object's). */
  name: z.string().max(253),
  object: z.record(z.string(), z.unknown()),
  /** How many of the feed's last requests for the edited hooks to replay (0: only the cases). */
  limit: z.number().int().min(0).max(MAX_REPLAY_REQUESTS).optional(),
});

export type ReplayInput = z.infer<typeof replayInput>;

/** What the replay found, and what it could not replay. */
export interface ReplayResponse extends ReplayResult {
  /** Kept cases and feed requests whose request could not be built (an unknown resource…). */
  unreadable: number;
  /** Things worth knowing: the state read as this identity, a feed not readable by it… */
  notices: string[];
  /** Whether the feed was read (the identity may read decisions). */
  feedRead: boolean;
  /** The time span of the feed requests replayed, when any. */
  feedSpan?: { from: number; to: number };
}

export const replayRoute = route<ReplayResponse>()({
  method: "POST",
  path: "/api/admission-tests/replay",
  input: replayInput,
});
