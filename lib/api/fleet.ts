/**
 * /api/fleet/stream: every cluster the user can reach (the kubeconfig's contexts; in shared mode
 * the one the signed-in user acts in) and the clusters the Cluster Inventory API's ClusterProfiles
 * list, each read with its own credentials and its own timeout, sent as Server-Sent Events row by
 * row as they arrive, and again when a cluster's admission configuration changes.
 */
import { z } from "zod";
import { route } from "./contract";
import type { ServedVersion, ServerVersion } from "./overview";
import type { ClusterAdmissionSummary } from "@/lib/admission/fleet/summary";
import type { Comparable } from "@/lib/admission/fleet/comparable";
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";

/** How a row's cluster was found. */
export type FoundBy =
  | { via: "kubeconfig"; context: string }
  | {
      via: "cluster-profile";
      /** The context whose cluster serves the ClusterProfile. */
      context: string;
      namespace: string;
      name: string;
      /** spec.clusterManager.name. */
      manager?: string;
      /** status.version.kubernetes, as the cluster manager reports it. */
      reportedVersion?: string;
    };

/** The last hour's decisions of the cluster, from the decision store. */
export type FleetDecisions =
  | { state: "counted"; denials: number; errors: number; failOpens: number; windowMs: number }
  /** Why none are shown: the store is not this cluster's, or the identity may not read it. */
  | { state: "none"; why: string };

/** What is known of one cluster's row. */
export type FleetRowState =
  | { state: "reading" }
  | {
      state: "read";
      /** How long the read took. */
      ms: number;
      version: ServerVersion;
      /** The admissionregistration.k8s.io versions and kinds discovery says are served. */
      apis: ServedVersion[];
      summary: ClusterAdmissionSummary;
      /** Every configuration, policy and binding as the drift comparison reads it. */
      comparables: Comparable[];
      decisions: FleetDecisions;
      /** What could not be read and what that limits. */
      notices: string[];
    }
  | {
      state: "failed";
      ms: number;
      /** The cluster did not answer within the timeout (a hang), as opposed to a refusal. */
      timedOut: boolean;
      status: number;
      reason: string;
      message: string;
    }
  /** Listed by a ClusterProfile, and no kubeconfig context reaches its server. */
  | { state: "no-credentials"; message: string };

/** One cluster of the fleet. */
export interface FleetRow {
  /** Stable id: the context's name, or `profile:<context>/<namespace>/<name>`. */
  id: string;
  /** The kubeconfig context that reaches it (opens it in a tab); undefined without credentials. */
  context?: string;
  server: string;
  /** Every way it was found (a context may also be listed by a ClusterProfile). */
  foundBy: FoundBy[];
  /**
   * The Kubernetes minor whose admission semantics the row's lint and fail-closed hooks assumed
   * (e.g. "1.36"): its /version's (summary.kubernetes). Absent until the cluster is read.
   */
  assumedSemantics?: KubernetesMinor;
  row: FleetRowState;
}

/** One message of the stream. */
export type FleetStreamMessage =
  /** The rows known when the stream starts (all "reading"), and the timeout each read has. */
  | { type: "fleet"; rows: FleetRow[]; timeoutMs: number; live: boolean }
  /** A row, new or changed (a read finished, a configuration changed, a ClusterProfile found). */
  | { type: "row"; row: FleetRow }
  /** Every first read has finished (rows may still change later, while the stream is open). */
  | { type: "settled" };

const FLEET_TIMEOUT_MIN_MS = 200;
const FLEET_TIMEOUT_MAX_MS = 60_000;

/** Server-Sent Events of FleetStreamMessage (`event: fleet`, `row`, `settled`). */
export const fleetStreamRoute = route<FleetStreamMessage>()({
  method: "GET",
  path: "/api/fleet/stream",
  input: z.object({
    /** Each cluster's read timeout (default PORTCULLIS_FLEET_TIMEOUT_MS, else 5 s). */
    timeoutMs: z.coerce
      .number()
      .int()
      .min(FLEET_TIMEOUT_MIN_MS)
      .max(FLEET_TIMEOUT_MAX_MS)
      .optional(),
  }),
});
