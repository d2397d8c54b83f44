/**
 * Break-glass on admission policy bindings against the real apiserver, with this process as the
 * dashboard (server/break-glass/service.ts loaded here, on its own store) and its clock the
 * test's: the expiry is reached by moving the clock, never by waiting it out. A validating
 * binding's Deny relaxed to Warn and Audit — the apiserver then lets a violating write through —
 * and restored exactly on time; a racing edit kept and named; a mutating binding's namespaces
 * excluded through matchResources and its absence restored; a viewer refused.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { BREAK_GLASS_ANNOTATION } from "@/lib/admission/break-glass/record";
import type { KubeClient as Client } from "@/server/kube/client";
import type { TimerClock } from "./timers";
// Types only: the module is loaded once the environment names the stack (beforeAll).
import type * as ServiceModule from "./service";

type Service = typeof ServiceModule;

let stack: StackInfo;
let service: Service;
let clientOf: (user: User) => Client;
let dataDir: string;
const made: string[] = [];
const GROUP = "/apis/admissionregistration.k8s.io/v1";

type User = "admin" | "editor" | "viewer";

/** The test's clock: moved by hand; each due timer runs when the clock passes it. */
class TestClock implements TimerClock {
  private t = Date.now();
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  now = () => this.t;
  after(ms: number, fn: () => void): () => void {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + Math.max(0, ms), fn });
    return () => this.pending.delete(id);
  }
  advance(ms: number): void {
    this.t += ms;
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, p]) => p.at <= this.t)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) return;
      this.pending.delete(due[0]);
      due[1].fn();
    }
  }
}
const clock = new TestClock();

async function kube(user: User, method: string, p: string, body?: unknown) {
  const res = await httpsRequest(`${stack.server}${p}`, {
    method,
    body,
    ca: readFileSync(stack.caFile),
    token: stack.tokens[user],
  });
  return { status: res.status, json: res.body ? (JSON.parse(res.body) as Obj) : undefined };
}

interface Obj {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

beforeAll(async () => {
  stack = readStack();
  dataDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-break-glass-bindings-"));
  // This process is the dashboard: the stack's kubeconfig, a store of its own, no sweeps but the first.
  process.env.KUBECONFIG = stack.kubeconfig;
  process.env.PORTCULLIS_DATA_DIR = dataDir;
  process.env.PORTCULLIS_DEFAULT_CONTEXT = stack.contexts.admin;
  process.env.PORTCULLIS_BREAK_GLASS_SWEEP_SECONDS = "3600";
  service = await import("./service");
  const { kubeClientFor } = await import("@/server/kube/client");
  clientOf = (user) => kubeClientFor(stack.contexts[user]);
  await service.startBreakGlassReverts(clock);
});

afterAll(async () => {
  for (const p of made.reverse()) await kube("admin", "DELETE", p).catch(() => 0);
  rmSync(dataDir, { recursive: true, force: true });
});

const unique = (tag: string) => `bg-${tag}-${Date.now().toString(36)}`;

async function create(user: User, collection: string, body: { metadata: { name: string } }) {
  const res = await kube(user, "POST", `${GROUP}/${collection}`, body);
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  made.push(`${GROUP}/${collection}/${body.metadata.name}`);
  return res.json!;
}

/** A policy refusing ConfigMaps whose name starts with `<name>-`, bound with Deny. */
async function validatingPair(tag: string) {
  const name = unique(tag);
  await create("admin", "validatingadmissionpolicies", {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CREATE"],
            resources: ["configmaps"],
          },
        ],
      },
      validations: [
        { expression: `!object.metadata.name.startsWith('${name}-')`, message: "refused by test" },
      ],
    },
  } as { metadata: { name: string } });
  const binding = await create("admin", "validatingadmissionpolicybindings", {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name, annotations: { "team.example.com/owner": "platform" } },
    spec: { policyName: name, validationActions: ["Deny"] },
  } as { metadata: { name: string } });
  return { name, binding };
}

/** The apiserver's answer to creating a ConfigMap the policy refuses (dry run: nothing stays). */
async function tryViolating(name: string): Promise<number> {
  const res = await kube("admin", "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${name}-cm` },
  });
  return res.status;
}

const read = async (collection: string, name: string) =>
  (await kube("admin", "GET", `${GROUP}/${collection}/${name}`)).json!;

async function episodes() {
  return service.listEpisodes(clientOf("admin"));
}

describe("break-glass on a ValidatingAdmissionPolicyBinding", () => {
  const R = "validatingadmissionpolicybindings" as const;

  it("relaxes Deny to Warn and Audit until its time, and restores the exact previous binding then, not before", async () => {
    const { name, binding: before } = await validatingPair("warn");
    await expect.poll(() => tryViolating(name), { timeout: 20_000 }).toBe(422);

    const episode = await service.startBreakGlass(clientOf("admin"), {
      resource: R,
      name,
      mode: "warn",
      reason: "policy misfires on deploys",
      durationSeconds: 600,
    });
    expect(episode).toMatchObject({ actor: "admin", hooks: [name], state: "active" });
    const during = await read(R, name);
    expect(during.spec.validationActions).toEqual(["Warn", "Audit"]);
    expect(JSON.parse(during.metadata.annotations?.[BREAK_GLASS_ANNOTATION] ?? "{}")).toMatchObject(
      { id: episode.id, resource: R, mode: "warn", expiresAt: episode.expiresAt },
    );
    // The apiserver now lets the violating write through (with a warning).
    await expect.poll(() => tryViolating(name), { timeout: 20_000 }).toBe(201);
    // A second break-glass on it is refused while this one is active.
    await expect(
      service.startBreakGlass(clientOf("admin"), {
        resource: R,
        name,
        mode: "warn",
        reason: "again",
        durationSeconds: 60,
      }),
    ).rejects.toMatchObject({ status: 409 });

    // Not a moment before its time.
    clock.advance(episode.expiresAt - clock.now() - 1);
    expect((await episodes()).active.find((e) => e.id === episode.id)?.state).toBe("active");
    expect((await read(R, name)).spec.validationActions).toEqual(["Warn", "Audit"]);

    clock.advance(1);
    await expect
      .poll(async () => (await episodes()).ended.find((e) => e.id === episode.id)?.state, {
        timeout: 20_000,
      })
      .toBe("reverted");
    const after = await read(R, name);
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.annotations).toEqual(before.metadata.annotations);
    const ended = (await episodes()).ended.find((e) => e.id === episode.id);
    expect(ended).toMatchObject({
      attempts: 1,
      outcome: {
        trigger: "expiry",
        by: stack.contexts.admin,
        restored: [{ hook: name, field: "validationActions" }],
        kept: [],
      },
    });
    await expect.poll(() => tryViolating(name), { timeout: 20_000 }).toBe(422);
  });

  it("does not restore over a change made meanwhile: keeps it, names who made it, and asks", async () => {
    const { name } = await validatingPair("race");
    const episode = await service.startBreakGlass(clientOf("admin"), {
      resource: R,
      name,
      mode: "warn",
      reason: "race",
      durationSeconds: 300,
    });
    // Someone else sets the actions by hand meanwhile, as another user and field manager (its
    // Deny is theirs in managedFields: an element a write adds is owned by its writer).
    const edited = await read(R, name);
    edited.spec.validationActions = ["Deny", "Audit"];
    const put = await kube(
      "editor",
      "PUT",
      `${GROUP}/${R}/${name}?fieldManager=racing-editor`,
      edited,
    );
    expect(put.status, JSON.stringify(put.json)).toBe(200);

    clock.advance(episode.expiresAt - clock.now());
    await expect
      .poll(
        async () =>
          (await episodes()).kept
            .find((e) => e.id === episode.id)
            ?.outcome?.kept.map((k) => [
              k.hook,
              k.field,
              k.now,
              k.changedBy.some((m) => m.manager === "racing-editor"),
            ]),
        { timeout: 20_000 },
      )
      .toEqual([[name, "validationActions", ["Deny", "Audit"], true]]);
    const after = await read(R, name);
    expect(after.spec.validationActions).toEqual(["Deny", "Audit"]);
    expect(after.metadata.annotations?.[BREAK_GLASS_ANNOTATION]).toBeUndefined();

    // Answered "restore anyway", the original comes back.
    const answered = await service.revertNow(clientOf("admin"), episode.id, {
      force: [`${name}/validationActions`],
      keep: false,
    });
    expect(answered.state).toBe("closed");
    expect((await read(R, name)).spec.validationActions).toEqual(["Deny"]);
  });

  it("is refused to a viewer, and offered to an editor with the binding's modes", async () => {
    const { name } = await validatingPair("viewer");
    await expect(
      service.startBreakGlass(clientOf("viewer"), {
        resource: R,
        name,
        mode: "warn",
        reason: "no",
        durationSeconds: 60,
      }),
    ).rejects.toMatchObject({ status: 403 });
    expect((await read(R, name)).spec.validationActions).toEqual(["Deny"]);
    const v = await service.preview(clientOf("viewer"), { resource: R, name, mode: "warn" });
    expect(v).toMatchObject({ allowed: false, grantAllowed: false });
    const e = await service.preview(clientOf("editor"), { resource: R, name, mode: "warn" });
    expect(e).toMatchObject({
      allowed: true,
      grantAllowed: false,
      modes: ["warn", "exclude-namespaces"],
      binding: { policyName: name, validationActions: ["Deny"] },
      hooks: [{ name, breakglassCheck: false }],
    });
  });
});

describe("break-glass on a MutatingAdmissionPolicyBinding", () => {
  const R = "mutatingadmissionpolicybindings" as const;

  it("excludes namespaces through matchResources and restores the binding without one, exactly", async () => {
    const name = unique("mutating");
    await create("admin", "mutatingadmissionpolicies", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [""],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["configmaps"],
            },
          ],
        },
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression: `Object{metadata: Object.metadata{labels: {"${name}": "seen"}}}`,
            },
          },
        ],
      },
    } as { metadata: { name: string } });
    const before = await create("admin", R, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName: name },
    } as { metadata: { name: string } });
    expect(before.spec.matchResources).toBeUndefined();

    const episode = await service.startBreakGlass(clientOf("editor"), {
      resource: R,
      name,
      mode: "exclude-namespaces",
      namespaces: ["shop"],
      reason: "shop is stuck",
      durationSeconds: 120,
    });
    expect(episode.actor).toBe("editor");
    const during = await read(R, name);
    expect(during.spec.matchResources).toEqual({
      namespaceSelector: {
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["shop"] },
        ],
      },
      objectSelector: {},
      matchPolicy: "Equivalent",
    });
    // A mutating binding has no validationActions: "warn" is refused before anything is written.
    await expect(
      service.startBreakGlass(clientOf("admin"), {
        resource: R,
        name,
        mode: "warn",
        reason: "no",
        durationSeconds: 60,
      }),
    ).rejects.toMatchObject({ status: 400 });

    clock.advance(episode.expiresAt - clock.now());
    await expect
      .poll(async () => (await episodes()).ended.find((e) => e.id === episode.id)?.state, {
        timeout: 20_000,
      })
      .toBe("reverted");
    const after = await read(R, name);
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.annotations?.[BREAK_GLASS_ANNOTATION]).toBeUndefined();
    expect((await episodes()).ended.find((e) => e.id === episode.id)?.outcome?.by).toBe(
      stack.contexts.editor,
    );
  });
});
