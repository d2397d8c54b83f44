/**
 * /api/engines: the policy engines (Gatekeeper, Kyverno, Kubewarden) a cluster runs, what each
 * owns among its admission objects and which of its policies they carry. One contract for the
 * route and the Engines page.
 */
import { z } from "zod";
import type { SourcePolicyLinks } from "@/lib/admission/engines/joins";
import type { UnrecognisedEngineObject } from "@/lib/admission/engines/sources";
import type { EngineName, EngineOwnership, OwnedKind } from "@/lib/admission/engines/types";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import type { Stage } from "@/lib/admission/prediction/order";
import { route } from "./contract";

/** Decisions attributed to one hook or policy over the tally window. */
export interface EngineDecisionCounts {
  total: number;
  /** Requests it refused. */
  refused: number;
  /** Calls that failed (errors, timeouts, fail-opens). */
  failures: number;
}

/** One hook of an engine-owned webhook configuration. */
export interface EngineHookRow {
  source: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration";
  configuration: string;
  hook: string;
  /** Position in its configuration. */
  index: number;
  failurePolicy: "Fail" | "Ignore";
  timeoutSeconds: number;
  /** Where the apiserver calls it: its stage and 1-based place among that stage's calls. */
  order?: { stage: Stage; position: number; of: number };
  ownership: EngineOwnership;
  decisions?: EngineDecisionCounts;
}

/** One engine-owned admission policy or binding. */
export interface EnginePolicyRow {
  kind: Exclude<OwnedKind, "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration">;
  name: string;
  /** For a binding: the policy it binds. */
  policyName?: string;
  ownership: EngineOwnership;
  decisions?: EngineDecisionCounts;
}

/** One engine's part of the cluster. */
export interface EngineReport {
  engine: EngineName;
  /** The engine's API kinds this cluster serves, as `Kind group/version`. */
  served: string[];
  /**
   * Its policies (read from its custom resources, or only named by what carries them) with the
   * hooks, generated admission policies and bindings that carry each.
   */
  sources: SourcePolicyLinks[];
  unrecognised: UnrecognisedEngineObject[];
  hooks: EngineHookRow[];
  policies: EnginePolicyRow[];
  /**
   * The offline lint's findings about its objects (L20–L24 among them), each naming the engine
   * policy behind it where known. Absent where not linted.
   */
  findings?: LintFinding[];
}

/** GET /api/engines. */
export interface EnginesData {
  readAt: string;
  /** Only the engines with anything served or owned; empty on a cluster without engines. */
  engines: EngineReport[];
  /** What could not be read and what that limits, in words. */
  notices: string[];
}

export const enginesRoute = route<EnginesData>()({
  method: "GET",
  path: "/api/engines",
  input: z.object({}),
});
