/**
 * Break-glass: let a webhook configuration's (or an admission policy binding's) writes through for a bounded time, and undo it on
 * time (server/break-glass). Contracts of its routes.
 */
import { z } from "zod";
import { route } from "./contract";
import type {
  BreakGlassField,
  BreakGlassMode,
  BreakGlassResource,
} from "@/lib/admission/break-glass/record";

/** A field's writer as managedFields names it. */
interface FieldWriter {
  readonly manager: string;
  readonly operation: string;
  readonly time?: string;
}

/** A field a revert left as it found it, because someone changed it after break-glass. */
export interface KeptFieldView {
  readonly hook: string;
  readonly field: BreakGlassField;
  readonly original: unknown;
  readonly set: unknown;
  readonly now: unknown;
  readonly hookGone: boolean;
  readonly changedBy: readonly FieldWriter[];
}

/** How an episode ended (or why its last revert attempt failed). */
export interface RevertOutcome {
  readonly at: number;
  /** Who wrote the revert (a user, a kubeconfig context, or the dashboard's own account). */
  readonly by: string;
  /** `expiry`: on time, by the dashboard; `early`: a user's; `answer`: a user's answer to kept fields. */
  readonly trigger: "expiry" | "early" | "answer";
  readonly restored: ReadonlyArray<{ hook: string; field: BreakGlassField }>;
  readonly already: ReadonlyArray<{ hook: string; field: BreakGlassField }>;
  readonly kept: readonly KeptFieldView[];
  /** The configuration was deleted meanwhile: nothing to restore. */
  readonly gone?: boolean;
  readonly grantRemoved?: boolean;
  /** The attempt failed (it is retried). */
  readonly error?: string;
}

export interface EpisodeView {
  readonly id: string;
  readonly mode: BreakGlassMode;
  readonly resource: BreakGlassResource;
  readonly name: string;
  /** The hooks it applies to; a binding's own name. */
  readonly hooks: readonly string[];
  readonly namespaces?: readonly string[];
  readonly group?: string;
  readonly fields: ReadonlyArray<{
    hook: string;
    field: BreakGlassField;
    original: unknown;
    set: unknown;
  }>;
  readonly startedAt: number;
  readonly expiresAt: number;
  readonly actor: string;
  readonly reason: string;
  readonly state: "active" | "reverting" | "reverted" | "kept" | "closed";
  readonly outcome?: RevertOutcome;
  /** May the request's identity revert it (patch and update the configuration)? */
  readonly canRevert: boolean;
  /** Reverts begun, each after winning the claim in the store (1: reverted once). */
  readonly attempts: number;
}

export interface BreakGlassList {
  /** The server's clock when answered, for time left. */
  readonly now: number;
  readonly active: readonly EpisodeView[];
  /** Ended with fields someone changed meanwhile: waiting for an answer. */
  readonly kept: readonly EpisodeView[];
  /** The latest ended ones, newest first. */
  readonly ended: readonly EpisodeView[];
}

/** The name of the break-glass stream's change event. */
export const BREAK_GLASS_EVENT = "break-glass";

/** What a change event says: only that the episodes changed (read the list again) and when. */
interface BreakGlassChange {
  readonly at: number;
}

/**
 * Server-Sent Events: `event: break-glass` each time an episode starts, begins reverting, ends,
 * fails a revert or is answered (on this dashboard at once, on another replica at its next
 * sweep), and the heartbeat. The banner reads the list again on each, and on each (re)connection.
 */
export const breakGlassStreamRoute = route<BreakGlassChange>()({
  method: "GET",
  path: "/api/break-glass/stream",
});

/** Active break-glass episodes and those waiting for an answer, cluster-wide. */
export const breakGlassListRoute = route<BreakGlassList>()({
  method: "GET",
  path: "/api/break-glass",
});

const breakGlassResource = z.enum([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicybindings",
]);
const breakGlassMode = z.enum(["ignore", "exclude-namespaces", "grant", "warn"]);

export interface ControllerWarningView {
  readonly who: string;
  readonly text: string;
  /** The controller's own emergency switches, as its documentation or source gives them. */
  readonly emergency: readonly string[];
}

export interface BreakGlassPreview {
  /** May the request's identity patch and update the configuration? */
  readonly allowed: boolean;
  /** And create the ClusterRole and ClusterRoleBinding of a grant? */
  readonly grantAllowed: boolean;
  readonly hooks: ReadonlyArray<{
    name: string;
    failurePolicy?: string;
    /** Declares the documented `breakglass` authorization matchCondition. */
    breakglassCheck: boolean;
  }>;
  /** A binding's: what it enforces now (hooks is then the binding alone). */
  readonly binding?: {
    readonly policyName: string;
    readonly validationActions?: readonly string[];
  };
  /** The modes that apply to this kind. */
  readonly modes: readonly BreakGlassMode[];
  /** Writers that will put the change back (from managedFields, owner references, the engines). */
  readonly warnings: readonly ControllerWarningView[];
  readonly active?: EpisodeView;
  readonly maxMinutes: number;
  readonly defaultMinutes: number;
}

/** What break-glass on one configuration (or one of its hooks) would meet: access, controllers. */
export const breakGlassPreviewRoute = route<BreakGlassPreview>()({
  method: "GET",
  path: "/api/break-glass/preview",
  input: z.object({
    resource: breakGlassResource,
    name: z.string().min(1).max(253),
    hook: z.string().min(1).max(253).optional(),
    mode: breakGlassMode.default("ignore"),
  }),
});

/** Lets writes through for a bounded time, as the request's identity. */
export const breakGlassStartRoute = route<EpisodeView>()({
  method: "POST",
  path: "/api/break-glass",
  input: z.object({
    resource: breakGlassResource,
    name: z.string().min(1).max(253),
    hook: z.string().min(1).max(253).optional(),
    mode: breakGlassMode,
    namespaces: z.array(z.string().min(1).max(63)).max(100).optional(),
    group: z.string().min(1).max(253).optional(),
    reason: z.string().trim().min(1, "a reason is required").max(1000),
    /** Seconds; the server's default (30 minutes) when absent, at most its configured maximum. */
    durationSeconds: z.number().int().min(1).optional(),
  }),
});

/**
 * Reverts now (as the request's identity), or answers an episode whose revert kept fields:
 * `force` names fields (`hook/field`) to restore anyway, `keep` closes it leaving them.
 */
export const breakGlassRevertRoute = route<EpisodeView>()({
  method: "POST",
  path: "/api/break-glass/[id]/revert",
  input: z.object({
    force: z.array(z.string().max(600)).max(200).default([]),
    keep: z.boolean().default(false),
  }),
});
