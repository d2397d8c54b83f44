import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { caBundleSummary, caBundleText } from "./ca-bundle";
import { changeOfWatchEvent, changesOfAuditEvent, type ChangeRecord } from "./changes";
import { diffObjects, storedForm } from "./diff";
import { beforeAfter, percentile } from "./effects";
import { actorText, groupByDay, markersIn, timelineEntries, UNKNOWN_ACTOR } from "./timeline";
import { recreatedObject } from "./restore";

// openssl req -x509 -newkey ec … -days 365 -subj /CN=test-ca: notAfter 2027-11-22T17:20:40Z.
const CA =
  "-----BEGIN CERTIFICATE-----\nMIIBeTCCAR+gAwIBAgIUBfQAYxQ2So+fRo/qMg6c+uvpHtIwCgYIKoZIzj0EAwIw\nEjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNjExMjIxNzIwNDBaFw0yNzExMjIxNzIw\nNDBaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC\nAATV/ubrl7DUMg+Zrdfo7RkXIgleADBKrztRq638JoDyB/ttJP127p7srP7ErF2X\nOtE286A1fkOIE8Yk+TXuTFPDo1MwUTAdBgNVHQ4EFgQUemYt2/3wiZHicHXRCeHo\nK9vHftQwHwYDVR0jBBgwFoAUemYt2/3wiZHicHXRCeHoK9vHftQwDwYDVR0TAQH/\nBAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEAtwnDFuLICwDW/fXgO6NF8CozSTLT\nMLz+eAAq8OYsS7UCIFzG4fccXhkCjyoJGDE7a7Axr11z/vUcSZUn/FhqSvrG\n-----END CERTIFICATE-----\n";
const b64 = btoa(CA);

describe("caBundle", () => {
  it("is shown as a digest with its certificates' subject and expiry", () => {
    const s = caBundleSummary(b64);
    expect(s.digest).toBe(`sha256:${createHash("sha256").update(b64).digest("hex").slice(0, 16)}`);
    expect(s.certificates).toEqual([
      { subject: "CN=test-ca", notAfter: "2027-11-22T17:20:40.000Z" },
    ]);
    expect(caBundleText(b64)).toBe(`${s.digest} (CN=test-ca, expires 2027-11-22)`);
    expect(caBundleText("bm90IHBlbQ==")).toMatch(/\(no certificate\)$/);
  });
});

const hook = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { url: `https://${name}/`, caBundle: b64 },
  failurePolicy: "Fail",
  timeoutSeconds: 10,
  ...extra,
});
const cfg = (rv: string, webhooks: unknown[]) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: {
    name: "c",
    uid: "u1",
    resourceVersion: rv,
    generation: Number(rv),
    managedFields: [{}],
  },
  webhooks,
});

describe("diffObjects", () => {
  it("names changed leaves by path, hooks by name, and ignores what every write moves", () => {
    const a = cfg("1", [hook("a.example.com"), hook("b.example.com")]);
    const b = cfg("2", [
      hook("b.example.com", { timeoutSeconds: 30 }),
      hook("a.example.com", { failurePolicy: "Ignore" }),
    ]);
    expect(diffObjects(a, b)).toEqual([
      {
        path: "webhooks[name=a.example.com].failurePolicy",
        change: "changed",
        before: "Fail",
        after: "Ignore",
      },
      {
        path: "webhooks[name=b.example.com].timeoutSeconds",
        change: "changed",
        before: "10",
        after: "30",
      },
      {
        path: "webhooks[*].name",
        change: "changed",
        before: '["a.example.com","b.example.com"]',
        after: '["b.example.com","a.example.com"]',
      },
    ]);
  });

  it("shows a caBundle rotation as digests with subjects", () => {
    const a = cfg("1", [hook("a.example.com")]);
    const b = cfg("2", [
      hook("a.example.com", { clientConfig: { url: "https://a.example.com/", caBundle: "" } }),
    ]);
    const [d] = diffObjects(a, b);
    expect(d?.path).toBe("webhooks[name=a.example.com].clientConfig.caBundle");
    expect(d?.before).toMatch(/^sha256:[0-9a-f]{16} \(CN=test-ca, expires 2027-11-22\)$/);
    expect(d?.after).toMatch(/no certificate/);
  });

  it("lists a creation's and a deletion's fields as added or removed", () => {
    const a = cfg("1", [hook("a.example.com")]);
    expect(diffObjects(undefined, a).map((d) => [d.path, d.change])).toEqual([
      ["webhooks", "added"],
    ]);
    expect(diffObjects(a, undefined).map((d) => [d.path, d.change])).toEqual([
      ["webhooks", "removed"],
    ]);
  });

  it("stores objects without managedFields or the last-applied copy", () => {
    const o = storedForm({
      metadata: {
        name: "x",
        managedFields: [{}],
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" },
      },
    });
    expect(o).toEqual({ metadata: { name: "x" } });
  });
});

const auditEvent = (over: Record<string, unknown>) => ({
  kind: "Event",
  apiVersion: "audit.k8s.io/v1",
  level: "RequestResponse",
  auditID: "a-1",
  stage: "ResponseComplete",
  requestURI: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/c",
  verb: "update",
  user: { username: "admin", groups: ["system:masters"] },
  userAgent: "kubectl/v1.37.2",
  objectRef: {
    resource: "validatingwebhookconfigurations",
    name: "c",
    apiGroup: "admissionregistration.k8s.io",
    apiVersion: "v1",
  },
  responseStatus: { code: 200 },
  stageTimestamp: "2026-11-29T10:00:00.000000Z",
  ...over,
});

describe("changesOfAuditEvent", () => {
  it("reads the actor, the impersonator and the stored object of a write", () => {
    const [c] = changesOfAuditEvent(
      auditEvent({
        impersonatedUser: { username: "alice", groups: ["team-a"] },
        responseObject: cfg("7", [hook("a.example.com")]),
      }),
    );
    expect(c).toMatchObject({
      kind: "ValidatingWebhookConfiguration",
      name: "c",
      uid: "u1",
      version: "7",
      operation: "update",
      source: "audit",
      actor: {
        user: "alice",
        groups: ["team-a"],
        userAgent: "kubectl/v1.37.2",
        impersonator: "admin",
      },
    });
    expect(c?.object?.metadata).toEqual({
      name: "c",
      uid: "u1",
      resourceVersion: "7",
      generation: 7,
    });
    expect(actorText(c!)).toBe("alice (impersonated by admin)");
  });

  it("keeps a Request-level patch as its patch, without an after-state", () => {
    const [c] = changesOfAuditEvent(
      auditEvent({ verb: "patch", level: "Request", requestObject: { webhooks: [] } }),
    );
    expect(c).toMatchObject({ operation: "patch", version: "", patch: '{"webhooks":[]}' });
    expect(c?.object).toBeUndefined();
  });

  it("reads a deletion's uid from the Status", () => {
    const [c] = changesOfAuditEvent(
      auditEvent({
        verb: "delete",
        responseObject: { kind: "Status", status: "Success", details: { uid: "u1" } },
      }),
    );
    expect(c).toMatchObject({ operation: "delete", uid: "u1", version: "delete" });
  });

  it.each([
    [
      "a dry run",
      {
        requestURI:
          "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/c?dryRun=All",
      },
    ],
    ["a failure", { responseStatus: { code: 409 } }],
    ["another stage", { stage: "ResponseStarted" }],
    ["a read", { verb: "get" }],
    [
      "a status write",
      {
        objectRef: {
          resource: "validatingadmissionpolicies",
          subresource: "status",
          name: "p",
          apiGroup: "admissionregistration.k8s.io",
        },
      },
    ],
    ["another group", { objectRef: { resource: "configmaps", name: "c", apiGroup: "" } }],
  ])("records nothing for %s", (_, over) => {
    expect(changesOfAuditEvent(auditEvent(over))).toEqual([]);
  });
});

describe("timeline", () => {
  const rec = (id: number, time: number, over: Partial<ChangeRecord>): ChangeRecord => ({
    id,
    time,
    kind: "ValidatingWebhookConfiguration",
    name: "c",
    uid: "u1",
    version: String(id),
    operation: "update",
    source: "audit",
    auditID: "",
    ...over,
  });

  it("diffs each change against the one before it, across a page's edge and an unknown version", () => {
    const v1 = cfg("1", [hook("a.example.com")]);
    const v2 = cfg("2", [hook("a.example.com", { timeoutSeconds: 5 })]);
    const v4 = cfg("4", [hook("a.example.com", { timeoutSeconds: 7 })]);
    const entries = timelineEntries(
      [
        rec(4, 40, { object: v4 }),
        rec(3, 30, { operation: "patch", patch: "{}" }),
        rec(2, 20, { object: v2 }),
      ],
      rec(1, 10, { object: v1, operation: "create" }),
    );
    expect(
      entries.map((e) => [
        e.change.id,
        e.known,
        e.diff.map((d) => `${d.path}:${d.before}→${d.after}`),
      ]),
    ).toEqual([
      [4, true, ["webhooks[name=a.example.com].timeoutSeconds:5→7"]],
      [3, false, []],
      [2, true, ["webhooks[name=a.example.com].timeoutSeconds:10→5"]],
    ]);
  });

  it("groups by day and marks changes in a range, with the watch's unknown actor said", () => {
    const day = Date.parse("2026-11-29T00:00:00Z");
    const changes = [rec(2, day + 5, { source: "watch" }), rec(1, day - 5, {})];
    expect(groupByDay(changes, (c) => c.time).map((g) => [g.day, g.items.length])).toEqual([
      ["2026-11-29", 1],
      ["2026-11-28", 1],
    ]);
    expect(markersIn(changes, day, day + 10).map((m) => [m.id, m.who])).toEqual([
      [2, UNKNOWN_ACTOR],
    ]);
  });

  it("reads a watch event as an actor-less change", () => {
    const c = changeOfWatchEvent("ValidatingWebhookConfiguration", "MODIFIED", cfg("9", []), 5);
    expect(c).toMatchObject({ version: "9", operation: "update", source: "watch", time: 5 });
    expect(c?.actor).toBeUndefined();
    expect(
      changeOfWatchEvent("ValidatingWebhookConfiguration", "DELETED", cfg("9", []), 5),
    ).toMatchObject({
      version: "delete",
      operation: "delete",
    });
  });
});

describe("beforeAfter", () => {
  it("counts each side of the change apart, with the p99 of timed calls", () => {
    const at = 1_000_000;
    const d = [
      { time: at - 100, outcome: "admitted", latencyMs: 5 },
      { time: at - 50, outcome: "denied", latencyMs: 7 },
      { time: at, outcome: "error" },
      { time: at + 10, outcome: "error", latencyMs: 900 },
      { time: at + 20, outcome: "failed-open" },
      { time: at + 30, outcome: "timeout", latencyMs: 10_000 },
      { time: at + 10_000, outcome: "error" },
    ];
    const r = beforeAfter(d, at, 1000);
    expect(r.before).toEqual({
      calls: 2,
      denials: 1,
      errors: 0,
      failOpens: 0,
      timeouts: 0,
      p99Ms: 7,
    });
    expect(r.after).toEqual({
      calls: 3,
      denials: 0,
      errors: 1,
      failOpens: 1,
      timeouts: 1,
      p99Ms: 10_000,
    });
    expect(percentile([], 99)).toBeUndefined();
  });
});

describe("restoredObject", () => {
  it("takes the earlier configuration and labels onto the current metadata (its resourceVersion kept)", async () => {
    const { restoredObject } = await import("./restore");
    const current = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "c", uid: "u1", resourceVersion: "9", labels: { now: "1" } },
      webhooks: [{ name: "a", timeoutSeconds: 30 }],
    };
    const earlier = {
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "c", uid: "u1", resourceVersion: "3", annotations: { then: "1" } },
      webhooks: [{ name: "a", timeoutSeconds: 5 }],
    };
    expect(restoredObject(current, earlier)).toEqual({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "c", uid: "u1", resourceVersion: "9", annotations: { then: "1" } },
      webhooks: [{ name: "a", timeoutSeconds: 5 }],
    });
  });
});

describe("recreatedObject", () => {
  it("creates a deleted object again from its last known state, without what the apiserver sets", () => {
    const last = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: {
        name: "c",
        uid: "u1",
        resourceVersion: "42",
        generation: 3,
        creationTimestamp: "2026-11-29T10:00:00Z",
        managedFields: [{ manager: "kubectl" }],
        ownerReferences: [{ kind: "Thing", name: "t", uid: "o1" }],
        labels: { team: "a" },
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}", why: "x" },
      },
      webhooks: [hook("a.example.com")],
      status: { observedGeneration: 3 },
    };
    expect(
      recreatedObject(last, "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"),
    ).toEqual({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "c", labels: { team: "a" }, annotations: { why: "x" } },
      webhooks: [hook("a.example.com")],
    });
  });
});

describe("a deletion's entry", () => {
  it("names the change holding the last known state (across the page's edge too)", () => {
    const rec = (id: number, operation: ChangeRecord["operation"], rv?: string): ChangeRecord => ({
      id,
      time: id,
      kind: "ValidatingWebhookConfiguration",
      name: "c",
      uid: "u1",
      version: rv ?? "delete",
      operation,
      source: "watch",
      auditID: "",
      ...(rv ? { object: cfg(rv, [hook("a.example.com")]) } : {}),
    });
    const patchOnly: ChangeRecord = { ...rec(3, "patch"), version: "", patch: "{}" };
    const entries = timelineEntries([rec(4, "delete"), patchOnly], rec(2, "update", "2"));
    expect(entries[0]?.lastKnown).toBe(2);
    expect(entries[1]?.lastKnown).toBeUndefined();
    expect(timelineEntries([rec(1, "delete")])[0]?.lastKnown).toBeUndefined();
  });
});
