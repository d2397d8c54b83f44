/**
 * `npm run demo` as a newcomer runs it: it prints its URL once the pages have data, the pages and
 * the API answer with the seeded hooks, policies and live decisions (and the historical admission
 * kinds, served from the legacy group), and Ctrl-C (SIGINT to its
 * process group, as a terminal sends it) stops every process it started and leaves no file.
 * Reuses the built control plane and dashboard of the test run (no second build).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_PAGES, LEGACY_OBJECTS } from "../cluster/harness/demo-ready";
import { LEGACY_ADMISSION_GROUP } from "../cluster/legacy-crds";
import { servedKinds } from "../lib/k8s/served-kinds";
import { servedV1beta1HookKinds } from "../lib/k8s/v1beta1-hooks";
import type { OverviewData } from "../lib/api/overview";
import { isRunning, startDemo, type DemoProcess } from "../cluster/harness/demo-process";

/** Every file (not directory) below `dir`. */
function filesBelow(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out.push(...filesBelow(p));
    else out.push(p);
  }
  return out;
}

describe("npm run demo", () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-demo-state-"));
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-demo-tmp-"));
  let demo: DemoProcess | undefined;

  afterAll(async () => {
    await demo?.stop("SIGKILL");
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(tmpDir, { recursive: true, force: true });
  });

  it("serves every page with data, then Ctrl-C leaves no process and no file", async () => {
    demo = await startDemo({ PORTCULLIS_STATE_DIR: stateDir, TMPDIR: tmpDir });
    const get = async (p: string) => {
      const res = await fetch(`${demo?.url}${p}`, {
        headers: { "sec-fetch-site": "same-origin", "x-portcullis-context": demo?.context ?? "" },
      });
      return { status: res.status, text: await res.text() };
    };

    // The production server, not the development one.
    const home = await get("/");
    expect(home.status).toBe(200);
    expect(home.text).not.toContain("__nextDevClientId");
    expect(home.text).not.toContain("/_next/static/chunks/react-refresh");
    for (const page of DEMO_PAGES) expect((await get(page.path)).status, page.path).toBe(200);

    const mutating = await get(
      "/api/resources/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
    );
    expect(mutating.text).toContain("namespace.sidecar-injector.istio.io");
    expect(mutating.text).toContain("mservice.elbv2.k8s.aws");
    const validating = await get(
      "/api/resources/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    );
    for (const hook of [
      "validate.kyverno.svc-ignore",
      "validate-policy.kyverno.svc",
      "validate.nginx.ingress.kubernetes.io",
      "pods.tenant-guard.portcullis.dev",
    ])
      expect(validating.text).toContain(hook);

    const policies = await get(
      "/api/resources/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
    );
    expect(policies.text).toContain("require-team-label-teams");

    // The historical admission kinds: discovery finds them in the legacy group (so the navigation
    // links their pages), and each lists its seeded configurations.
    const { apis } = JSON.parse((await get("/api/overview")).text) as OverviewData;
    const historical = servedKinds(apis)
      .filter((k) => k.readAt?.group === LEGACY_ADMISSION_GROUP)
      .map((k) => k.known.kind);
    expect(historical.sort()).toEqual([
      "ExternalAdmissionHookConfiguration",
      "InitializerConfiguration",
    ]);
    expect(servedV1beta1HookKinds(apis).map((k) => `${k.readAt?.group} ${k.known.kind}`)).toEqual([
      `${LEGACY_ADMISSION_GROUP} MutatingWebhookConfiguration`,
      `${LEGACY_ADMISSION_GROUP} ValidatingWebhookConfiguration`,
    ]);
    for (const [version, plural, name] of LEGACY_OBJECTS) {
      const list = await get(`/api/resources/${LEGACY_ADMISSION_GROUP}/${version}/${plural}`);
      expect(list.status, plural).toBe(200);
      expect(list.text, plural).toContain(name);
    }
    const initializers = await get(
      `/api/resources/${LEGACY_ADMISSION_GROUP}/v1alpha1/initializerconfigurations`,
    );
    for (const name of [
      "envoy.initializer.kubernetes.io",
      "podimage.example.com",
      "alwayspullimages.kubernetes.io",
    ])
      expect(initializers.text).toContain(name);

    // Traffic keeps producing decisions: more arrive while we watch.
    const count = async () =>
      (JSON.parse((await get("/api/decisions?limit=500")).text) as { items: unknown[] }).items
        .length;
    const first = await count();
    expect(first).toBeGreaterThan(0);
    await expect.poll(count, { timeout: 20_000, interval: 1_000 }).toBeGreaterThan(first);

    // The dangerous hook fails closed the way it would in a cluster: its Service has no ready
    // endpoint, and the apiserver says so at once (not a dial that hangs until the timeout).
    const guardErrors = async () =>
      (
        JSON.parse(
          (await get("/api/decisions?hook=pods.tenant-guard.portcullis.dev&limit=20")).text,
        ) as { items: Array<{ outcome: string; message: string; code?: number }> }
      ).items;
    await expect
      .poll(async () => (await guardErrors()).length, { timeout: 30_000, interval: 1_000 })
      .toBeGreaterThan(0);
    for (const d of await guardErrors()) {
      expect(d.outcome).toBe("error");
      expect(d.code).toBe(500);
      expect(d.message).toContain('no endpoints available for service "tenant-guard"');
    }
    // Controllers act as their own ServiceAccounts: the pods of the traffic's Deployments are
    // admitted (or refused) as the ReplicaSet controller that creates them asks.
    const controller = "system:serviceaccount:kube-system:replicaset-controller";
    const byController = async () =>
      (
        JSON.parse(
          (await get(`/api/decisions?user=${encodeURIComponent(controller)}&limit=20`)).text,
        ) as { items: Array<{ request: { user: string; resource: string } }> }
      ).items;
    await expect
      .poll(async () => (await byController()).length, { timeout: 60_000, interval: 1_000 })
      .toBeGreaterThan(0);
    for (const d of await byController()) {
      expect(d.request).toMatchObject({ user: controller, resource: "pods" });
    }

    const pids = demo.descendants();
    // npm, its shell, tsx, the demo, kube-apiserver, etcd, the controller manager, the dashboard.
    expect(pids.length).toBeGreaterThanOrEqual(7);
    // The webhook servers' certificates live in temporary directories while the demo runs.
    expect(readdirSync(tmpDir).filter((e) => e.startsWith("portcullis-webhook-")).length).toBe(2);

    const code = await demo.stop("SIGINT");
    expect([0, "SIGINT"], demo.output()).toContain(code);
    expect(pids.filter(isRunning)).toEqual([]);
    expect(filesBelow(stateDir)).toEqual([]);
    // tsx keeps its compile cache in $TMPDIR/tsx-<uid> on purpose (shared by every tsx run).
    const left = readdirSync(tmpDir).filter((e) => !/^tsx-\d+$/.test(e));
    expect(left).toEqual([]);
    expect(demo.output()).toContain("demo: stopped");
  }, 240_000);
});
