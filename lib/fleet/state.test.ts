import { describe, expect, it } from "vitest";
import type { FleetRow } from "@/lib/api/fleet";
import { applyFleetMessage, driftOf, EMPTY_FLEET, openHref, rowName } from "./state";

const reading = (id: string): FleetRow => ({
  id,
  context: id,
  server: `https://${id}`,
  foundBy: [{ via: "kubeconfig", context: id }],
  row: { state: "reading" },
});

describe("fleet state", () => {
  it("replaces a row by id and keeps the order rows first arrived in", () => {
    let s = applyFleetMessage(EMPTY_FLEET, {
      type: "fleet",
      rows: [reading("a"), reading("b")],
      timeoutMs: 1000,
      live: true,
    });
    s = applyFleetMessage(s, {
      type: "row",
      row: {
        ...reading("b"),
        row: {
          state: "failed",
          ms: 3,
          timedOut: false,
          status: 503,
          reason: "Unreachable",
          message: "x",
        },
      },
    });
    s = applyFleetMessage(s, {
      type: "row",
      row: {
        id: "profile:https://c:443",
        server: "https://c",
        foundBy: [{ via: "cluster-profile", context: "a", namespace: "fleet", name: "c" }],
        row: { state: "no-credentials", message: "none" },
      },
    });
    expect(s.rows.map((r) => [rowName(r), r.row.state])).toEqual([
      ["a", "reading"],
      ["b", "failed"],
      ["fleet/c", "no-credentials"],
    ]);
    expect(applyFleetMessage(s, { type: "settled" }).settled).toBe(true);
    // Only read rows take part in drift.
    expect(driftOf(s.rows)).toEqual([]);
    expect(openHref("a b")).toBe("/webhooks?context=a%20b");
  });
});
