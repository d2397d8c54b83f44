/**
 * A fleet of three minors: the stack's control plane (1.37) and a 1.36 and a 1.35 one beside it,
 * plus a context nothing answers. The fleet stream (its handler called in process) lists all
 * four, each reachable cluster with the version its /version reports and the admission APIs its
 * discovery serves (MutatingAdmissionPolicy v1 from 1.36 on; 1.35 has only the beta and alpha,
 * which these control planes turn on), the unreachable one saying so within its timeout.
 *
 * The older minors' binaries are built on demand (`npm run cluster:build -- --minor 1.35`,
 * 1.36; about 13 minutes each) and CI does not build them: without them the test is skipped,
 * its name saying so. `npm run test:versions` builds them and runs this file.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { isBuilt } from "../../cluster/build";
import { readStack } from "../../cluster/harness/stack";
import type { ControlPlaneInfo } from "../../cluster/control-plane";
import { readEventStream } from "../../test/event-stream";
import {
  adminContext,
  startControlPlanes,
  unreachableServer,
  writeFleetKubeconfig,
} from "../../test/fleet";
import { CONTEXT_HEADER } from "@/lib/http/context";
import type { FleetRow, FleetStreamMessage } from "@/lib/api/fleet";
import type { ServedVersion } from "@/lib/api/overview";
import { applyFleetMessage, EMPTY_FLEET, type FleetState } from "@/lib/fleet/state";
import { GET } from "@/app/api/fleet/stream/route";

const TIMEOUT_MS = 5_000;
const olderBuilt = isBuilt("1.35") && isBuilt("1.36");
const stack = readStack();
// The stack itself runs an older minor under `PORTCULLIS_KUBERNETES_MINOR`: the fleet is then
// not the three minors this test is about.
const stackNewest = stack.minor === "1.37";
const why = !olderBuilt
  ? " (skipped: the 1.35 and 1.36 control planes are not built; npm run test:versions builds them)"
  : !stackNewest
    ? ` (skipped: the stack runs ${stack.minor}, not 1.37)`
    : "";

let stop: Array<() => Promise<void>> = [];
const savedKubeconfig = process.env.KUBECONFIG;

beforeAll(async () => {
  if (why) return;
  const extra = await startControlPlanes(2, ["1.36", "1.35"]);
  stop.push(extra.stop);
  const [v136, v135] = extra.planes as unknown as [ControlPlaneInfo, ControlPlaneInfo];
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-fleet-minors-kubeconfig-"));
  process.env.KUBECONFIG = writeFleetKubeconfig(
    path.join(dir, "kubeconfig"),
    [
      adminContext("v1-37", stack),
      adminContext("v1-36", v136),
      adminContext("v1-35", v135),
      { ...adminContext("unreachable", stack), server: await unreachableServer() },
    ],
    "v1-37",
  );
}, 300_000);

afterAll(async () => {
  process.env.KUBECONFIG = savedKubeconfig;
  for (const s of stop.reverse()) await s();
  stop = [];
});

/** The fleet stream read until every row has settled. */
async function settledFleet(): Promise<FleetState> {
  const abort = new AbortController();
  try {
    const res = await GET(
      new Request(`http://127.0.0.1/api/fleet/stream?timeoutMs=${TIMEOUT_MS}`, {
        headers: { [CONTEXT_HEADER]: "v1-37" },
        signal: abort.signal,
      }),
    );
    expect(res.status).toBe(200);
    if (!res.body) throw new Error("no body");
    const stream = readEventStream(res.body);
    const fold = (): FleetState => {
      let fleet = EMPTY_FLEET;
      for (const e of stream.text.split("\n\n").slice(0, -1)) {
        const data = /^data: (.*)$/m.exec(e)?.[1];
        if (!data || !/^event: (fleet|row|settled)$/m.test(e)) continue;
        fleet = applyFleetMessage(fleet, JSON.parse(data) as FleetStreamMessage);
      }
      return fleet;
    };
    await expect
      .poll(() => fold().settled, { timeout: TIMEOUT_MS + 30_000, interval: 20 })
      .toBe(true);
    return fold();
  } finally {
    abort.abort();
  }
}

/** The admissionregistration.k8s.io versions serving `resource`, as the row's discovery has them. */
const versionsServing = (apis: ServedVersion[], resource: string): string[] =>
  apis
    .filter(
      (v) =>
        v.group === "admissionregistration.k8s.io" && v.resources.some((r) => r.name === resource),
    )
    .map((v) => v.version)
    .sort();

test.skipIf(why !== "")(
  `a fleet of 1.37, 1.36 and 1.35 control planes and an unreachable context: four rows, each with its version, the minor it assumed and served admission APIs${why}`,
  async () => {
    const fleet = await settledFleet();
    expect(fleet.rows.map((r) => r.id)).toEqual(["v1-37", "v1-36", "v1-35", "unreachable"]);
    const row = (id: string): FleetRow["row"] | undefined =>
      fleet.rows.find((r) => r.id === id)?.row;

    const expected = [
      // [context, gitVersion, MutatingAdmissionPolicy versions served, ValidatingAdmissionPolicy's]
      ["v1-37", "v1.37.2", ["v1", "v1alpha1", "v1beta1"], ["v1"]],
      ["v1-36", "v1.36.3", ["v1", "v1alpha1", "v1beta1"], ["v1"]],
      ["v1-35", "v1.35.4", ["v1alpha1", "v1beta1"], ["v1"]],
    ] as const;
    for (const [id, gitVersion, maps, vaps] of expected) {
      const r = row(id);
      expect(r?.state, `${id}: ${JSON.stringify(r).slice(0, 400)}`).toBe("read");
      if (r?.state !== "read") continue;
      expect(r.version.gitVersion, id).toBe(gitVersion);
      // The row's lint assumed that minor's semantics, and the row says so.
      const minor = gitVersion.slice(1, 5);
      expect(r.summary.kubernetes, id).toEqual({ minor, source: "cluster" });
      expect(fleet.rows.find((x) => x.id === id)?.assumedSemantics, id).toBe(minor);
      expect(versionsServing(r.apis, "mutatingadmissionpolicies"), id).toEqual(maps);
      expect(versionsServing(r.apis, "validatingadmissionpolicies"), id).toEqual(vaps);
      expect(versionsServing(r.apis, "validatingwebhookconfigurations"), id).toEqual(["v1"]);
    }

    const unreachable = row("unreachable");
    expect(unreachable).toMatchObject({ state: "failed", timedOut: false, reason: "Unreachable" });
    if (unreachable?.state === "failed") expect(unreachable.ms).toBeLessThan(TIMEOUT_MS);
  },
  120_000,
);
