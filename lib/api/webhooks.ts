/**
 * /api/webhooks: the admission kinds the editor reads and writes (webhook configurations,
 * admission policies and bindings, the historical kinds), what the identity may do with them, and
 * what the pages read beside them.
 */
import { z } from "zod";
import type { WorkloadLike } from "@/lib/admission/lint/deadlock";
import type { ReconcileFight, Recreation } from "@/lib/admission/provenance/fights";
import type { Labels } from "@/lib/admission/model/selectors";
import type { AdmissionSnapshot, DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { EngineSources } from "@/lib/admission/engines/sources";
import type { JsonSchema } from "@/lib/k8s/openapi-schema";
import type { V1EndpointSlice, V1Pod, V1Service } from "@/lib/k8s/types";
import type { CaBundleView } from "@/lib/k8s/x509";
import type { KubeApiErrorBody } from "@/lib/k8s/errors";
import { MAX_TARGETS, parseTargets } from "@/lib/namespaces/backend-pods";
import type { BackendView } from "@/lib/webhooks/backend-view";
import type { AccessMap, LegacyAccessMap } from "@/lib/webhooks/resource-kinds";
import { route } from "./contract";

/**
 * An admission object as the apiserver returns it, as JSON (the editor's unit); the one
 * definition the server (server/kube/webhooks.ts) and the browser share.
 */
export interface ConfigObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    resourceVersion?: string;
    uid?: string;
    [k: string]: unknown;
  };
  webhooks?: Array<Record<string, unknown>>;
  [k: string]: unknown;
}

export interface HookDetails {
  name: string;
  ca: CaBundleView;
  backend: BackendView;
}

export interface WebhookDetails {
  resourceVersion: string;
  hooks: HookDetails[];
}

/** GET /api/webhooks/lint-state: the live state the lint checks beyond the offline ones read. */
export interface LintStateData {
  namespaces: Record<string, Labels>;
  discovery: DiscoveryResource[];
  /** Undefined when the identity may not read them (the checks that need them are limited). */
  services?: V1Service[];
  endpointSlices?: V1EndpointSlice[];
  pods?: V1Pod[];
  /** Where a backend Service selects no pod: the workloads whose pod template it selects. */
  workloads?: WorkloadLike[];
  serverMinor?: number;
  /** The policy engines' part (L20–L24): absent on a cluster without engines. */
  engines?: LintEngineState;
  notices: string[];
}

/**
 * What the engine checks read beside the webhook configurations: the engines' policies (their
 * custom resources, as the identity may list them) and the admission policies and bindings an
 * engine owns (the generated ones the checks join to their source), the others left out.
 */
export interface LintEngineState extends Pick<
  AdmissionSnapshot,
  | "validatingAdmissionPolicies"
  | "validatingAdmissionPolicyBindings"
  | "mutatingAdmissionPolicies"
  | "mutatingAdmissionPolicyBindings"
> {
  sources: EngineSources;
}

/** One step of a rename and how it went. */
export interface RenameStep {
  step: string;
  ok: boolean;
  message?: string;
}

/** What a rename did (server/kube/webhooks.ts renameConfiguration). */
export interface RenameResult {
  ok: boolean;
  steps: RenameStep[];
  object?: ConfigObject;
  error?: { status: number; reason: string; message: string };
}

/** A failed rename's answer: the error and every step taken (including the rollback). */
export type RenameErrorBody = KubeApiErrorBody & { steps: RenameStep[] };

/** A pod as far as the deadlock map reads it: its metadata only. */
export interface PodMetadata {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
}

/** A Deployment, StatefulSet, DaemonSet or ReplicaSet: its name and its pod template's labels. */
export interface WorkloadTemplate extends WorkloadLike {
  kind: "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet";
  metadata: { name: string; namespace: string };
  spec: { template: { metadata: { labels?: Record<string, string> } } };
}

/**
 * GET /api/webhooks/backend-pods?b=<namespace>/<selector>…: the pods each target's selector
 * selects, and (where none does) the workloads whose pod template it selects, as the request's
 * identity. What it may not list is named, not guessed.
 */
export interface BackendPodsData {
  pods: PodMetadata[];
  workloads: WorkloadTemplate[];
  /** Namespace → what the identity may not list there (403): `pods`, `deployments`, … */
  forbidden: Record<string, string[]>;
  /** What could not be read and what that limits, in words. */
  notices: string[];
}

/** A DNS-subdomain name as the apiserver accepts for cluster-scoped objects. */
export const objectName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS subdomain name");

/** The JSON object the editor sends; the apiserver is the judge of its contents. */
const objectBody = z
  .object({ metadata: z.record(z.string(), z.unknown()).optional() })
  .passthrough();

/** A create or replace: the object, and whether to only dry-run it. */
const writeBody = z.object({ object: objectBody, dryRun: z.boolean().default(false) });

/** Reads one configuration as the request's identity. */
export const readConfigurationRoute = route<ConfigObject>()({
  method: "GET",
  path: "/api/webhooks/[resource]/[name]",
});

/** Replaces it with resourceVersion precondition and strict field validation (or dry-runs that). */
export const replaceConfigurationRoute = route<ConfigObject>()({
  method: "PUT",
  path: "/api/webhooks/[resource]/[name]",
  input: writeBody,
});

/** Deletes it if it is still the version the admin confirmed. */
export const deleteConfigurationRoute = route<{ deleted: string }>()({
  method: "DELETE",
  path: "/api/webhooks/[resource]/[name]",
  input: z.object({ uid: z.string().min(1), resourceVersion: z.string().min(1) }),
});

/** Creates a configuration (201), or dry-runs the create (200). */
export const createConfigurationRoute = route<ConfigObject>()({
  method: "POST",
  path: "/api/webhooks/[resource]",
  input: writeBody,
});

/** The decoded caBundles and the backends of a configuration's hooks, by position. */
export const webhookDetailsRoute = route<WebhookDetails>()({
  method: "GET",
  path: "/api/webhooks/[resource]/[name]/details",
});

/**
 * Safe rename (a configuration's name decides its place in the order; historical kinds too):
 * create the new name, verify, delete the old; rolls back on any failure.
 */
export const renameConfigurationRoute = route<RenameResult, RenameErrorBody>()({
  method: "POST",
  path: "/api/webhooks/[resource]/[name]/rename",
  input: z.object({ newName: objectName, resourceVersion: z.string().min(1) }),
});

/**
 * What the request's identity may do with admission configurations and policies; `kinds: legacy`:
 * with the historical kinds instead (a LegacyAccessMap).
 */
export const webhookAccessRoute = route<AccessMap | LegacyAccessMap>()({
  method: "GET",
  path: "/api/webhooks/access",
  input: z.object({ kinds: z.enum(["current", "legacy"]).default("current") }),
});

/** Reconcile fights seen in the watch stream since `since` (when the dashboard began watching). */
export interface FightsData {
  readonly since: string;
  readonly fights: readonly ReconcileFight[];
  /** Objects deleted and created again under the same name (an engine re-creating its own). */
  readonly recreations: readonly Recreation[];
}

/**
 * Two field managers changing the same field of an admission object back and forth, as the
 * dashboard's watches of the admission kinds saw it (watching starts with the first read).
 */
export const fightsRoute = route<FightsData>()({
  method: "GET",
  path: "/api/webhooks/fights",
});

/** The live state the lint checks beyond the offline ones read. */
export const lintStateRoute = route<LintStateData>()({
  method: "GET",
  path: "/api/webhooks/lint-state",
});

/**
 * The labels of the pods behind service-backed webhooks (`b=<namespace>/<selector>`, one per
 * backend Service's namespace and selector).
 */
export const backendPodsRoute = route<BackendPodsData>()({
  method: "GET",
  path: "/api/webhooks/backend-pods",
  input: z.object({
    b: z
      .array(z.string())
      .max(MAX_TARGETS)
      .transform((values, ctx) => {
        const targets = parseTargets(values);
        if (!(targets instanceof Error)) return targets;
        ctx.addIssue({ code: "custom", message: targets.message });
        return z.NEVER;
      }),
  }),
});

/** JSON Schema of the kind from the cluster's own OpenAPI v3, for editor completion and hover. */
export const kindSchemaRoute = route<JsonSchema>()({
  method: "GET",
  path: "/api/webhooks/schema/[resource]",
});
