/**
 * The fleet page's state, folded from the stream's messages (lib/api/fleet.ts), and the drift
 * it shows. Pure: the page and the tests fold the same way.
 */
import type { FleetRow, FleetStreamMessage } from "@/lib/api/fleet";
import { fleetDrift, type DriftEntry } from "@/lib/admission/fleet/drift";

export interface FleetState {
  rows: FleetRow[];
  timeoutMs: number | undefined;
  live: boolean;
  settled: boolean;
}

export const EMPTY_FLEET: FleetState = {
  rows: [],
  timeoutMs: undefined,
  live: false,
  settled: false,
};

/** The state after one message: a row replaces the row of its id, or is added after the others. */
export function applyFleetMessage(s: FleetState, m: FleetStreamMessage): FleetState {
  if (m.type === "fleet")
    return { rows: m.rows, timeoutMs: m.timeoutMs, live: m.live, settled: false };
  if (m.type === "settled") return { ...s, settled: true };
  const i = s.rows.findIndex((r) => r.id === m.row.id);
  const rows = i < 0 ? [...s.rows, m.row] : s.rows.map((r, j) => (j === i ? m.row : r));
  return { ...s, rows };
}

/** A row's display name: its context, else the ClusterProfile that lists it. */
export function rowName(r: FleetRow): string {
  if (r.context) return r.context;
  const p = r.foundBy.find((f) => f.via === "cluster-profile");
  return p && p.via === "cluster-profile" ? `${p.namespace}/${p.name}` : r.id;
}

/** Drift across the rows read so far (a cluster not read is left out, never counted as lacking). */
export function driftOf(rows: readonly FleetRow[]): DriftEntry[] {
  return fleetDrift(
    rows
      .filter((r) => r.row.state === "read")
      .map((r) => ({
        cluster: rowName(r),
        objects: r.row.state === "read" ? r.row.comparables : undefined,
      })),
  );
}

/** The page a fleet row opens: /webhooks in a tab of that cluster's context. */
export function openHref(context: string, page = "/webhooks"): string {
  return `${page}?context=${encodeURIComponent(context)}`;
}
