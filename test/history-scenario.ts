/**
 * The change history against the real apiserver, declared once and run on SQLite and on
 * PostgreSQL (history.int.test.ts, history-postgres.int.test.ts): the dashboard's own server
 * code runs in the test process with the store the environment names, fed as the server feeds
 * it — the watch hub's shared watches (watchHistory) and the apiserver's real audit events,
 * read from its audit log and handed over as the EventList body its audit webhook posts
 * (changesOfEventListBody, as the sink does; the decisions through parseEventListBody and
 * storeDecisions, as the sink does).
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import nodePath from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { auditEventsOf, readStack, type StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import { startWebhookServer, type WebhookServer } from "../cluster/harness/webhook-server";
import { parseEventListBody } from "@/lib/admission/audit/audit-batch";
import type { TimelineResponse } from "@/lib/api/history";
import { storeDecisions } from "@/server/decisions/instance";
import { changesOfEventListBody, recordChanges } from "@/server/history/ingest";
import { effectsOf, recentChanges, timelineOf, versionOf } from "@/server/history/service";
import { watchHistory, watchRecorded } from "@/server/history/watch-recorder";
import { recordManifests } from "@/server/history/manifest-recorder";
import { recreatedObject } from "@/lib/admission/history/restore";
import { ManifestWatcher } from "@/server/kube/admission-manifests";

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";
// openssl req -x509 -newkey ec … -days 365 -subj /CN=test-ca (as lib/admission/lint's tests).
const OTHER_CA =
  "-----BEGIN CERTIFICATE-----\nMIIBeTCCAR+gAwIBAgIUBfQAYxQ2So+fRo/qMg6c+uvpHtIwCgYIKoZIzj0EAwIw\nEjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNjExMjIxNzIwNDBaFw0yNzExMjIxNzIw\nNDBaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC\nAATV/ubrl7DUMg+Zrdfo7RkXIgleADBKrztRq638JoDyB/ttJP127p7srP7ErF2X\nOtE286A1fkOIE8Yk+TXuTFPDo1MwUTAdBgNVHQ4EFgQUemYt2/3wiZHicHXRCeHo\nK9vHftQwHwYDVR0jBBgwFoAUemYt2/3wiZHicHXRCeHoK9vHftQwDwYDVR0TAQH/\nBAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEAtwnDFuLICwDW/fXgO6NF8CozSTLT\nMLz+eAAq8OYsS7UCIFzG4fccXhkCjyoJGDE7a7Axr11z/vUcSZUn/FhqSvrG\n-----END CERTIFICATE-----\n";

const AUDIT_CONTEXT = "audited@history-test";

export function historyScenario(): void {
  let stack: StackInfo;
  let ca: Buffer;
  let hooks: WebhookServer;
  const tag = `hist-${Date.now().toString(36)}`;
  const made: string[] = [];

  async function api(
    method: string,
    url: string,
    opts: {
      body?: unknown;
      user?: "admin" | "editor";
      as?: { user: string; group: string };
      patch?: boolean;
    } = {},
  ) {
    const res = await httpsRequest(`${stack.server}${url}`, {
      method,
      token: stack.tokens[opts.user ?? "admin"],
      ca,
      body: opts.body,
      timeoutMs: 30_000,
      ...(opts.patch ? { contentType: "application/merge-patch+json" } : {}),
      headers: {
        "User-Agent": `history-test/${opts.user ?? "admin"}`,
        ...(opts.as
          ? { "Impersonate-User": opts.as.user, "Impersonate-Group": opts.as.group }
          : {}),
      },
    });
    const auditID = res.headers["audit-id"];
    return {
      status: res.status,
      body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {},
      auditID: String(auditID),
    };
  }

  /** Hands the requests' audit events to the sink's code, as one EventList body. */
  async function deliverAudit(auditIDs: string[], decisions = false): Promise<void> {
    const items = (await Promise.all(auditIDs.map((id) => auditEventsOf(stack, id)))).flat();
    expect(items.filter((e) => e.stage === "ResponseComplete")).toHaveLength(auditIDs.length);
    const body = Buffer.from(
      JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items }),
    );
    if (decisions) await storeDecisions(parseEventListBody(body));
    await recordChanges(changesOfEventListBody(body));
  }

  const timeline = (
    kind: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration",
    name: string,
  ) => timelineOf(kind, name, { limit: 50 });

  /** A hook of the test's webhook server on CREATE of the test group's things, failing open. */
  const thingsHook = (hookName: string, spec: Record<string, unknown> = {}) =>
    hooks.webhook(hookName, "a", {
      failurePolicy: "Ignore",
      ...spec,
      rules: [
        {
          apiGroups: ["history.portcullis.test"],
          apiVersions: ["v1"],
          operations: ["CREATE"],
          resources: ["things"],
        },
      ],
    });

  /** Creates a ValidatingWebhookConfiguration (removed after the tests): its path and the answer. */
  async function createValidating(
    metadata: { name: string; labels?: Record<string, string> },
    webhooks: unknown[],
  ) {
    const created = await api("POST", `${ADMISSION}/validatingwebhookconfigurations`, {
      body: { metadata, webhooks },
    });
    expect(created.status).toBe(201);
    const path = `${ADMISSION}/validatingwebhookconfigurations/${metadata.name}`;
    made.push(path);
    return { path, created };
  }

  beforeAll(async () => {
    stack = readStack();
    ca = readFileSync(stack.caFile);
    process.env.KUBECONFIG = stack.kubeconfig;
    // The audit events' context (as the fleet page's): a name no watch here uses.
    process.env.PORTCULLIS_DECISIONS_CONTEXT = AUDIT_CONTEXT;
    hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
    await watchHistory(stack.contexts.admin);
    expect(
      (await api("POST", "/api/v1/namespaces", { body: { metadata: { name: tag } } })).status,
    ).toBe(201);
    made.push(`/api/v1/namespaces/${tag}`);
  });

  afterAll(async () => {
    delete process.env.PORTCULLIS_DECISIONS_CONTEXT;
    for (const p of made.reverse()) await api("DELETE", p).catch(() => undefined);
    await hooks?.close();
  });

  it("three edits by two users (one impersonated) appear with their actors and field diffs, the watch's records of the same writes kept once", async () => {
    const name = `${tag}-v`;
    const hook = (spec: Record<string, unknown>) => ({
      ...thingsHook("a.history.test", { timeoutSeconds: 5 }),
      ...spec,
    });
    const { path, created } = await createValidating({ name }, [hook({})]);
    const current = (await api("GET", path)).body;
    const updated = await api("PUT", path, {
      user: "editor",
      body: { ...current, webhooks: [hook({ timeoutSeconds: 7 })] },
    });
    expect(updated.status).toBe(200);
    const patched = await api("PATCH", path, {
      patch: true,
      as: { user: "alice", group: "system:masters" },
      body: { metadata: { labels: { team: "a" } } },
    });
    expect(patched.status).toBe(200);

    // The watch saw all three first, without actors.
    await expect
      .poll(
        async () => {
          await watchRecorded(stack.contexts.admin);
          return (await timeline("ValidatingWebhookConfiguration", name)).entries.length;
        },
        { timeout: 15_000 },
      )
      .toBe(3);
    expect(
      (await timeline("ValidatingWebhookConfiguration", name)).entries.every(
        (e) => !e.change.actor,
      ),
    ).toBe(true);

    await deliverAudit([created.auditID, updated.auditID, patched.auditID]);
    const t: TimelineResponse = await timeline("ValidatingWebhookConfiguration", name);
    expect(t.total).toBe(3);
    expect(t.audited).toBe(true);
    expect(
      t.entries.map((e) => [
        e.change.operation,
        e.change.source,
        e.change.actor?.user,
        e.change.actor?.impersonator,
        e.change.auditID,
      ]),
    ).toEqual([
      ["patch", "audit", "alice", "admin", patched.auditID],
      ["update", "audit", "editor", undefined, updated.auditID],
      ["create", "audit", "admin", undefined, created.auditID],
    ]);
    const [p, u, c] = t.entries;
    expect(p?.change.actor?.groups).toContain("system:masters");
    expect(p?.diff).toEqual([{ path: "metadata.labels", change: "added", after: '{"team":"a"}' }]);
    expect(u?.diff).toEqual([
      {
        path: "webhooks[name=a.history.test].timeoutSeconds",
        change: "changed",
        before: "5",
        after: "7",
      },
    ]);
    // The creation lists its webhooks, the caBundle as a digest with the CA's subject and expiry.
    expect(c?.diff.map((d) => d.path)).toEqual(["webhooks"]);
    expect(u?.change.object?.metadata).toMatchObject({ name, resourceVersion: u?.change.version });
    expect(u?.change.actor?.userAgent).toBe("history-test/editor");

    // Recent changes across the cluster, by actor.
    const byAlice = await recentChanges({ actor: "alice" }, { limit: 10 });
    expect(byAlice.items.map((c) => c.name)).toContain(name);
    const byEditor = await recentChanges({ actor: "editor", name }, { limit: 10 });
    expect(byEditor.items.map((c) => c.operation)).toEqual(["update"]);
  });

  it("a caBundle rotation shows as digests with the certificates' subject and expiry", async () => {
    const name = `${tag}-ca`;
    const { path, created } = await createValidating({ name }, [thingsHook("ca.history.test")]);
    // The CA rotated: the bundle now holds another CA (CN=test-ca) than the webhook server's.
    const r = await httpsRequest(`${stack.server}${path}`, {
      method: "PATCH",
      token: stack.tokens.admin,
      ca,
      contentType: "application/json-patch+json",
      body: [
        {
          op: "replace",
          path: "/webhooks/0/clientConfig/caBundle",
          value: Buffer.from(OTHER_CA).toString("base64"),
        },
      ],
    });
    const res = { status: r.status, auditID: String(r.headers["audit-id"]) };
    expect(res.status).toBe(200);
    await deliverAudit([created.auditID, res.auditID]);
    const [rot] = (await timeline("ValidatingWebhookConfiguration", name)).entries;
    expect(rot?.diff).toHaveLength(1);
    expect(rot?.diff[0]?.path).toBe("webhooks[name=ca.history.test].clientConfig.caBundle");
    expect(rot?.diff[0]?.before).toMatch(
      /^sha256:[0-9a-f]{16} \(CN=.+, expires \d{4}-\d\d-\d\d\)$/,
    );
    expect(rot?.diff[0]?.after).toMatch(/^sha256:[0-9a-f]{16} \(CN=test-ca, expires 2027-11-22\)$/);
    expect(rot?.diff[0]?.before).not.toBe(rot?.diff[0]?.after);
  });

  it("without the audit sink, the watch alone gives the diff and says the actor is unknown", async () => {
    const name = `${tag}-w`;
    const { path } = await createValidating({ name }, [thingsHook("w.history.test")]);
    expect(
      (
        await api("PATCH", path, {
          patch: true,
          user: "editor",
          body: { metadata: { annotations: { why: "narrowed" } } },
        })
      ).status,
    ).toBe(200);
    await expect
      .poll(
        async () => {
          await watchRecorded(stack.contexts.admin);
          return (await timeline("ValidatingWebhookConfiguration", name)).entries.length;
        },
        { timeout: 15_000 },
      )
      .toBe(2);
    const t = await timeline("ValidatingWebhookConfiguration", name);
    expect(t.audited).toBe(false);
    expect(t.entries.map((e) => [e.change.operation, e.change.source, e.change.actor])).toEqual([
      ["update", "watch", undefined],
      ["create", "watch", undefined],
    ]);
    expect(t.entries[0]?.diff).toEqual([
      { path: "metadata.annotations", change: "added", after: '{"why":"narrowed"}' },
    ]);
    const unknown = await recentChanges({ actor: "unknown", name }, { limit: 10 });
    expect(unknown.items).toHaveLength(2);
  });

  it("a change that makes a hook fail is marked on its decisions, with the jump in fail-opens after it", async () => {
    const name = `${tag}-m`;
    const hookName = "m.history.test";
    const path = `${ADMISSION}/mutatingwebhookconfigurations/${name}`;
    hooks.program("m", { type: "allow" });
    const spec = {
      failurePolicy: "Ignore",
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": tag } },
      rules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
      ],
    };
    const created = await api("POST", `${ADMISSION}/mutatingwebhookconfigurations`, {
      body: { metadata: { name }, webhooks: [hooks.webhook(hookName, "m", spec)] },
    });
    expect(created.status).toBe(201);
    made.push(path);
    let serial = 0;
    const createConfigMap = async () => {
      const r = await api("POST", `/api/v1/namespaces/${tag}/configmaps`, {
        body: { metadata: { name: `cm-${serial++}` } },
      });
      expect(r.status).toBe(201);
      return r.auditID;
    };
    // Calls reach the hook once the apiserver has the configuration: wait on the hook's own record.
    const before: string[] = [];
    await expect
      .poll(
        async () => {
          before.push(await createConfigMap());
          return hooks.calls("m").length;
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) before.push(await createConfigMap());

    // The change: the backend moved to a port nothing listens on.
    const current = (await api("GET", path)).body as { webhooks: Array<Record<string, unknown>> };
    const dead = {
      ...current.webhooks[0],
      clientConfig: {
        ...(current.webhooks[0]?.clientConfig as object),
        url: "https://127.0.0.1:9/hooks/m",
      },
    };
    const changed = await api("PUT", path, {
      user: "editor",
      body: { ...current, webhooks: [dead] },
    });
    expect(changed.status).toBe(200);
    const after: string[] = [];
    const failedOpen = async (id: string) =>
      JSON.stringify(await auditEventsOf(stack, id)).includes(
        "failed-open.mutation.webhook.admission.k8s.io",
      );
    // Until the apiserver has the new configuration a create may still reach the old backend.
    await expect
      .poll(
        async () => {
          const id = await createConfigMap();
          after.push(id);
          return failedOpen(id);
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    for (let i = 0; i < 4; i++) after.push(await createConfigMap());
    await deliverAudit([...before, ...after], true);
    await deliverAudit([created.auditID, changed.auditID]);

    const fx = await effectsOf({
      kind: "MutatingWebhookConfiguration",
      name,
      hook: hookName,
      phase: "mutating",
      window: 15,
    });
    const marker = fx.markers.find((m) => m.operation === "update");
    expect(marker?.who).toBe("editor");
    const cmp = fx.comparisons.find((c) => c.changeId === marker?.id);
    expect(cmp?.before.calls).toBeGreaterThanOrEqual(5);
    expect(cmp?.before.failOpens).toBe(0);
    expect(cmp?.after.failOpens).toBeGreaterThanOrEqual(5);
    expect(fx.histogram.buckets.length).toBeGreaterThan(0);
  });

  it("names the context each change was seen through: the watched one, else the audit events' (PORTCULLIS_DECISIONS_CONTEXT); filterable", async () => {
    const name = `${tag}-ctx`;
    const { path, created } = await createValidating({ name }, [thingsHook("ctx.history.test")]);
    await expect
      .poll(
        async () => {
          await watchRecorded(stack.contexts.admin);
          return (await timeline("ValidatingWebhookConfiguration", name)).entries.length;
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    // A Request-level audit event of a patch the watch has not stored yet: the audit's context.
    const patched = await api("PATCH", path, {
      patch: true,
      user: "editor",
      body: { metadata: { labels: { seen: "audit" } } },
    });
    expect(patched.status).toBe(200);
    await deliverAudit([created.auditID]);
    const t = await timeline("ValidatingWebhookConfiguration", name);
    // The watch saw the creation first: its context stays with the audit's actor added.
    expect(t.entries.at(-1)?.change).toMatchObject({
      source: "audit",
      context: stack.contexts.admin,
    });
    const byWatch = await recentChanges(
      { name, context: stack.contexts.admin, observed: true },
      { limit: 10 },
    );
    expect(byWatch.items.map((c) => c.operation)).toContain("create");
    expect(
      (await recentChanges({ name, context: "no-such-context" }, { limit: 10 })).items,
    ).toEqual([]);
    // Delivered before the watch's record of the patch: the audit events' context.
    const auditOnly = (await auditEventsOf(stack, patched.auditID)).map((e) => ({
      ...e,
      // The same write as another object's (no watch record to meet): only the audit names it.
      objectRef: { ...(e.objectRef as object), name: `${name}-audit-only` },
      responseObject: undefined,
    }));
    await recordChanges(
      changesOfEventListBody(
        Buffer.from(
          JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items: auditOnly }),
        ),
      ),
    );
    const audited = await recentChanges({ name: `${name}-audit-only` }, { limit: 10 });
    expect(audited.items.map((c) => [c.source, c.context])).toEqual([["audit", AUDIT_CONTEXT]]);
    expect(
      (await recentChanges({ name: `${name}-audit-only`, context: AUDIT_CONTEXT }, { limit: 10 }))
        .items,
    ).toHaveLength(1);
  });

  it("records static manifest objects appearing, changing and disappearing, attributed to their file, two objects of the same content kept apart", async () => {
    const dir = mkdtempSync(nodePath.join(os.tmpdir(), "portcullis-history-manifests-"));
    const watcher = new ManifestWatcher([{ dir, plugin: "ValidatingAdmissionWebhook" }]);
    const name = `${tag}-m.static.k8s.io`;
    const other = `${tag}-n.static.k8s.io`;
    const file = nodePath.join(dir, "hooks.yaml");
    const vwc = (n: string, timeoutSeconds: number) => ({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: n },
      webhooks: [
        {
          name: "s.history.test",
          clientConfig: { url: "https://static.history.test/validate" },
          rules: [
            {
              apiGroups: ["history.portcullis.test"],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["things"],
            },
          ],
          failurePolicy: "Ignore",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds,
        },
      ],
    });
    const write = (objects: object[]) => {
      if (objects.length === 0) return rmSync(file, { force: true });
      const tmp = nodePath.join(dir, ".hooks.tmp");
      writeFileSync(tmp, objects.map((o) => JSON.stringify(o)).join("\n---\n"));
      renameSync(tmp, file);
    };
    const ops = async (n: string) => {
      await recordManifests(watcher);
      return (await timeline("ValidatingWebhookConfiguration", n)).entries.map((e) => [
        e.change.operation,
        e.change.source,
        e.change.actor?.user,
      ]);
    };
    try {
      // Two objects whose content is the same but for the name: two timelines.
      write([vwc(name, 5), vwc(other, 5)]);
      watcher.reread();
      await expect
        .poll(() => ops(name), { timeout: 15_000 })
        .toEqual([["create", "manifest", `manifest ${file}`]]);
      expect(await ops(other)).toHaveLength(1);
      write([vwc(name, 7)]);
      await expect.poll(() => ops(name), { timeout: 15_000 }).toHaveLength(2);
      expect((await timeline("ValidatingWebhookConfiguration", name)).entries[0]?.diff).toEqual([
        {
          path: "webhooks[name=s.history.test].timeoutSeconds",
          change: "changed",
          before: "5",
          after: "7",
        },
      ]);
      await expect.poll(() => ops(other), { timeout: 15_000 }).toHaveLength(2);
      expect((await ops(other))[0]?.[0]).toBe("delete");
      // Back to the first content: a change of its own, not merged into the first one.
      write([vwc(name, 5)]);
      await expect.poll(() => ops(name), { timeout: 15_000 }).toHaveLength(3);
      // A dashboard started again on the same files records nothing new.
      const again = new ManifestWatcher([{ dir, plugin: "ValidatingAdmissionWebhook" }]);
      try {
        await recordManifests(again);
        expect(await ops(name)).toHaveLength(3);
      } finally {
        again.close();
      }
      write([]);
      await expect.poll(() => ops(name), { timeout: 15_000 }).toHaveLength(4);
      expect((await ops(name))[0]).toEqual(["delete", "manifest", `manifest ${file}`]);
    } finally {
      watcher.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a deleted object is created again from its last known state, accepted by the apiserver's dry run and create", async () => {
    const name = `${tag}-del`;
    const { path } = await createValidating({ name, labels: { team: "a" } }, [
      thingsHook("del.history.test", { timeoutSeconds: 4 }),
    ]);
    expect((await api("DELETE", path)).status).toBe(200);
    await expect
      .poll(
        async () => {
          await watchRecorded(stack.contexts.admin);
          return (await timeline("ValidatingWebhookConfiguration", name)).entries.map(
            (e) => e.change.operation,
          );
        },
        { timeout: 15_000 },
      )
      .toEqual(["delete", "create"]);
    const [deleted, before] = (await timeline("ValidatingWebhookConfiguration", name)).entries;
    expect(deleted?.lastKnown).toBe(before?.change.id);
    const last = await versionOf(deleted?.lastKnown ?? 0);
    const again = recreatedObject(
      last?.object ?? {},
      "admissionregistration.k8s.io/v1",
      "ValidatingWebhookConfiguration",
    );
    expect(
      (
        await api("POST", `${ADMISSION}/validatingwebhookconfigurations?dryRun=All`, {
          body: again,
        })
      ).status,
    ).toBe(201);
    const made2 = await api("POST", `${ADMISSION}/validatingwebhookconfigurations`, {
      body: again,
    });
    expect(made2.status).toBe(201);
    expect(made2.body).toMatchObject({ metadata: { name, labels: { team: "a" } } });
    expect((made2.body.webhooks as Array<{ timeoutSeconds: number }>)[0]?.timeoutSeconds).toBe(4);
  });
}
