/**
 * The fleet stream (GET /api/fleet/stream, its handler called in process) across three real
 * control planes (the stack's and two more of the same binaries), a context whose server
 * refuses connections and one whose server accepts and never answers: every context is a row,
 * the failing ones say why within their timeout without holding the others back, the clusters a
 * ClusterProfile lists join the fleet, and a configuration changed in one cluster shows as drift
 * within 2 s.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import type { ControlPlaneInfo } from "../../cluster/control-plane";
import { readEventStream } from "../../test/event-stream";
import {
  adminContext,
  startControlPlanes,
  startHangingListener,
  unreachableServer,
  writeFleetKubeconfig,
} from "../../test/fleet";
import { CONTEXT_HEADER } from "@/lib/http/context";
import type { FleetRow, FleetStreamMessage } from "@/lib/api/fleet";
import { applyFleetMessage, driftOf, EMPTY_FLEET, type FleetState } from "@/lib/fleet/state";
import { GET } from "@/app/api/fleet/stream/route";

const TIMEOUT_MS = 4_000;
const PROBE = "fleet-drift-probe";

let stop: Array<() => Promise<void>> = [];
let planes: Record<"a" | "b" | "c", ControlPlaneInfo>;
let c: ControlPlaneInfo;
let b: ControlPlaneInfo;
const savedKubeconfig = process.env.KUBECONFIG;

function admin(cp: ControlPlaneInfo) {
  const ca = readFileSync(cp.caFile);
  return (method: string, p: string, body?: unknown, contentType?: string) =>
    httpsRequest(`${cp.server}${p}`, { method, body, ca, token: cp.tokens.admin, contentType });
}

const probe = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: PROBE },
  webhooks: [
    {
      name: "probe.fleet.portcullis.test",
      clientConfig: { url: "https://127.0.0.1:1/validate" },
      // A resource nothing serves: the probe never sees a request of any other test.
      rules: [
        {
          apiGroups: ["fleet.portcullis.test"],
          apiVersions: ["v1"],
          operations: ["CREATE"],
          resources: ["nothings"],
        },
      ],
      failurePolicy: "Ignore",
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      timeoutSeconds: 5,
    },
  ],
};

const profileCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "clusterprofiles.multicluster.x-k8s.io" },
  spec: {
    group: "multicluster.x-k8s.io",
    scope: "Namespaced",
    names: {
      plural: "clusterprofiles",
      singular: "clusterprofile",
      kind: "ClusterProfile",
      listKind: "ClusterProfileList",
    },
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      },
    ],
  },
};

function profile(name: string, server: string) {
  return {
    apiVersion: "multicluster.x-k8s.io/v1alpha1",
    kind: "ClusterProfile",
    metadata: { name, namespace: "default" },
    spec: { clusterManager: { name: "fleet-test" } },
    status: {
      version: { kubernetes: "1.37.2" },
      credentialProviders: [{ name: "token", cluster: { server } }],
    },
  };
}

beforeAll(async () => {
  const stack = readStack();
  const extra = await startControlPlanes(2);
  stop.push(extra.stop);
  [b, c] = extra.planes as unknown as [ControlPlaneInfo, ControlPlaneInfo];
  planes = { a: stack, b, c };
  const hanging = await startHangingListener();
  stop.push(hanging.close);
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-fleet-kubeconfig-"));
  process.env.KUBECONFIG = writeFleetKubeconfig(
    path.join(dir, "kubeconfig"),
    [
      adminContext("a", stack),
      adminContext("b", b),
      adminContext("c", c),
      { ...adminContext("unreachable", stack), server: await unreachableServer() },
      { ...adminContext("hanging", stack), server: hanging.server },
    ],
    "a",
  );
  for (const cp of Object.values(planes)) {
    const api = admin(cp);
    await api(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${PROBE}`,
    );
    expect(
      (
        await api(
          "POST",
          "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
          probe,
        )
      ).status,
    ).toBe(201);
  }
}, 300_000);

afterAll(async () => {
  if (planes)
    await admin(planes.a)(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${PROBE}`,
    );
  process.env.KUBECONFIG = savedKubeconfig;
  for (const s of stop.reverse()) await s();
  stop = [];
});

/** Opens the stream and folds its messages as they arrive, noting when each row's state came. */
function openFleet(abort: AbortController) {
  const state: { fleet: FleetState; arrived: Map<string, number>; started: number } = {
    fleet: EMPTY_FLEET,
    arrived: new Map(),
    started: performance.now(),
  };
  const ready = (async () => {
    const res = await GET(
      new Request(`http://127.0.0.1/api/fleet/stream?timeoutMs=${TIMEOUT_MS}`, {
        headers: { [CONTEXT_HEADER]: "a" },
        signal: abort.signal,
      }),
    );
    expect(res.status).toBe(200);
    const body = res.body;
    if (!body) throw new Error("no body");
    const stream = readEventStream(body);
    let seen = 0;
    const fold = () => {
      const text = stream.text;
      const events = text.slice(seen).split("\n\n");
      const complete = events.slice(0, -1);
      for (const e of complete) {
        seen += e.length + 2;
        const data = /^data: (.*)$/m.exec(e)?.[1];
        if (!data || !/^event: (fleet|row|settled)$/m.test(e)) continue;
        const m = JSON.parse(data) as FleetStreamMessage;
        state.fleet = applyFleetMessage(state.fleet, m);
        if (m.type === "row" && m.row.row.state !== "reading" && !state.arrived.has(m.row.id))
          state.arrived.set(m.row.id, performance.now() - state.started);
      }
    };
    const timer = setInterval(fold, 10);
    void stream.ended.finally(() => clearInterval(timer));
  })();
  return { state, ready };
}

const rowOf = (s: { fleet: FleetState }, id: string): FleetRow | undefined =>
  s.fleet.rows.find((r) => r.id === id);

test("every context is a row; failing ones say why within their timeout; profiles join; a change is drift within 2 s", async () => {
  // Cluster c is an inventory hub: its ClusterProfiles list b (reachable through context b) and
  // a cluster no context reaches.
  const hub = admin(c);
  expect(
    (await hub("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", profileCrd))
      .status,
  ).toBe(201);
  await expect
    .poll(
      async () => (await hub("GET", "/apis/multicluster.x-k8s.io/v1alpha1/clusterprofiles")).status,
      {
        timeout: 30_000,
      },
    )
    .toBe(200);
  for (const p of [
    profile("member-b", b.server),
    profile("remote", "https://remote.fleet.portcullis.test:6443"),
  ])
    expect(
      (
        await hub(
          "POST",
          "/apis/multicluster.x-k8s.io/v1alpha1/namespaces/default/clusterprofiles",
          p,
        )
      ).status,
    ).toBe(201);
  const abort = new AbortController();
  try {
    const { state, ready } = openFleet(abort);
    await ready;
    await expect
      .poll(() => state.fleet.settled, { timeout: TIMEOUT_MS + 30_000, interval: 20 })
      .toBe(true);
    const fleet = state.fleet;
    expect(fleet.rows.slice(0, 5).map((r) => r.id)).toEqual([
      "a",
      "b",
      "c",
      "unreachable",
      "hanging",
    ]);

    for (const id of ["a", "b", "c"]) {
      const r = rowOf(state, id)?.row;
      expect(r?.state, `${id}: ${JSON.stringify(r).slice(0, 400)}`).toBe("read");
      if (r?.state !== "read") continue;
      expect(r.version.gitVersion).toMatch(/^v1\.37\./);
      // Its lint assumed its own minor, and the row says which.
      expect(rowOf(state, id)?.assumedSemantics).toBe("1.37");
      expect(r.apis.some((v) => v.version === "v1")).toBe(true);
      expect(r.summary.counts.webhooks).toBeGreaterThanOrEqual(1);
      expect(r.comparables.some((o) => o.name === PROBE)).toBe(true);
      // Read before the hanging cluster's timeout ended, and told before it.
      expect(state.arrived.get(id)).toBeLessThan(state.arrived.get("hanging") ?? 0);
    }

    const unreachable = rowOf(state, "unreachable")?.row;
    // A cluster not read assumed nothing.
    expect(rowOf(state, "unreachable")?.assumedSemantics).toBeUndefined();
    expect(unreachable).toMatchObject({
      state: "failed",
      timedOut: false,
      status: 503,
      reason: "Unreachable",
    });
    if (unreachable?.state === "failed") {
      expect(unreachable.message).toMatch(/ECONNREFUSED|cannot reach/);
      expect(unreachable.ms).toBeLessThan(TIMEOUT_MS);
    }
    const hanging = rowOf(state, "hanging")?.row;
    expect(hanging).toMatchObject({ state: "failed", timedOut: true, reason: "Timeout" });
    if (hanging?.state === "failed") {
      expect(hanging.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(hanging.ms).toBeLessThan(TIMEOUT_MS + 1_000);
    }

    // The inventory hub's profiles: b is found twice (kubeconfig and profile), the other has no credentials.
    expect(rowOf(state, "b")?.foundBy).toEqual([
      { via: "kubeconfig", context: "b" },
      expect.objectContaining({
        via: "cluster-profile",
        context: "c",
        namespace: "default",
        name: "member-b",
      }),
    ]);
    const remote = fleet.rows.find((r) => r.server === "https://remote.fleet.portcullis.test:6443");
    expect(remote?.row.state).toBe("no-credentials");
    expect(remote?.context).toBeUndefined();

    // The probe is the same everywhere; then b's timeout changes.
    const probeDrift = () => driftOf(state.fleet.rows).find((d) => d.name === PROBE);
    expect(probeDrift()?.present).toEqual(["a", "b", "c"]);
    expect(probeDrift()?.differs).toBe(false);
    const changed = performance.now();
    const patched = await admin(planes.b)(
      "PATCH",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${PROBE}`,
      [{ op: "replace", path: "/webhooks/0/timeoutSeconds", value: 7 }],
      "application/json-patch+json",
    );
    expect(patched.status).toBe(200);
    const stored = performance.now();
    await expect
      .poll(
        () =>
          probeDrift()
            ?.fields.filter((f) => f.differs)
            .map((f) => [f.field, f.values["b"]]),
        { timeout: 2_000, interval: 20 },
      )
      .toEqual([["probe.fleet.portcullis.test.timeoutSeconds", "7"]]);
    console.log(
      JSON.stringify({
        fleetDriftVisibleMs: Math.round(performance.now() - changed),
        fleetDriftVisibleAfterStoredMs: Math.round(performance.now() - stored),
        arrivedMs: Object.fromEntries(state.arrived),
      }),
    );
  } finally {
    abort.abort();
  }
}, 120_000);
