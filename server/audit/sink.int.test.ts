/**
 * The dashboard's /api/audit sink against hostile input: wrong or missing token, malformed JSON,
 * a body that is not an EventList, an oversized batch — each refused with a clear status, and
 * nothing stored. A well-formed batch is stored once (a retry is a duplicate) and readable
 * through /api/decisions.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { policyHeaders } from "../../test/api-headers";
import { readStack, type StackInfo } from "../../cluster/harness/stack";

let stack: StackInfo;
beforeAll(() => {
  stack = readStack();
});

async function post(body: BodyInit, token?: string): Promise<Response> {
  return fetch(`${stack.dashboardUrl}/api/audit`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body,
  });
}

/** Decisions stored for events by this user (each test's events carry its own user name). */
async function storedBy(user: string): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${stack.dashboardUrl}/api/decisions?user=${user}`, {
    headers: policyHeaders(stack.contexts.admin),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<Record<string, unknown>> }).items;
}

async function stored(user: string): Promise<boolean> {
  return (await storedBy(user)).length > 0;
}

// The apiserver stamps every event; one without a time would be as old as the epoch, and the
// store's age-based retention may delete it at any moment. A retried event is the same event, so
// the stamp is fixed once.
const now = new Date().toISOString();

function event(auditID: string) {
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID,
    stage: "ResponseComplete",
    requestReceivedTimestamp: now,
    stageTimestamp: now,
    requestURI: "/api/v1/namespaces/x/configmaps?dryRun=All",
    verb: "create",
    user: { username: auditID, groups: ["system:authenticated"] },
    objectRef: { resource: "configmaps", namespace: "x", name: "y", apiVersion: "v1" },
    responseStatus: { code: 201 },
    annotations: {
      "mutation.webhook.admission.k8s.io/round_0_index_2":
        '{"configuration":"c","webhook":"w.example.com","mutated":true}',
      "failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "v.example.com",
      "not.ours/whatever": "kept",
    },
  };
}

describe("/api/audit", () => {
  it("refuses a missing token and a wrong one with 401, storing nothing", async () => {
    const id = `sink-401-${Date.now()}`;
    const body = JSON.stringify({ kind: "EventList", items: [event(id)] });
    expect((await post(body)).status).toBe(401);
    expect((await post(body, "not-the-token")).status).toBe(401);
    expect(await stored(id)).toBe(false);
  });

  it("refuses malformed JSON and bodies that are not an EventList with 400 and a message", async () => {
    const id = `sink-400-${Date.now()}`;
    const whole = JSON.stringify({ kind: "EventList", items: [event(id)] });
    const bad = await post(whole.slice(0, -2), stack.auditToken);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/not JSON/);
    const wrongShape = await post(
      JSON.stringify({ kind: "Pod", items: [event(id)] }),
      stack.auditToken,
    );
    expect(wrongShape.status).toBe(400);
    expect(((await wrongShape.json()) as { message: string }).message).toMatch(/EventList/);
    expect(await stored(id)).toBe(false);
  });

  it("stores a batch between 10 and 16 MiB whole (the proxy in front of the sink must not cut it)", async () => {
    const id = `sink-12m-${Date.now()}`;
    const body = JSON.stringify({
      kind: "EventList",
      items: [event(id)],
      padding: " ".repeat(12 * 1024 * 1024),
    });
    const res = await post(body, stack.auditToken);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ accepted: 1, stored: 1, duplicates: 0 });
    expect(await stored(id)).toBe(true);
  });

  it("refuses a batch over 16 MiB with 413", async () => {
    const id = `sink-413-${Date.now()}`;
    const huge = JSON.stringify({
      kind: "EventList",
      items: [event(id)],
      padding: " ".repeat(17 * 1024 * 1024),
    });
    const res = await post(huge, stack.auditToken);
    expect(res.status).toBe(413);
    expect(await stored(id)).toBe(false);
  });

  it("stores a well-formed batch, skipping items that are not events, and decodes admission annotations", async () => {
    const id = `sink-${Date.now()}`;
    const res = await post(
      JSON.stringify({ kind: "EventList", items: [event(id), 42, { no: "auditID" }] }),
      stack.auditToken,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accepted: 1, stored: 1, duplicates: 0 });
    const items = await storedBy(id);
    const request = {
      verb: "create",
      user: id,
      code: 201,
      dryRun: true,
      resource: "configmaps",
      namespace: "x",
      name: "y",
    };
    // Newest first: the validating call after the mutating one.
    expect(items).toMatchObject([
      {
        auditID: id,
        kind: "validating-webhook",
        hook: "v.example.com",
        outcome: "failed-open",
        index: 0,
        request,
      },
      {
        auditID: id,
        kind: "mutating-webhook",
        configuration: "c",
        hook: "w.example.com",
        outcome: "mutated",
        round: 0,
        index: 2,
        request,
      },
    ]);
    // The apiserver retrying the same batch changes nothing.
    const again = await post(
      JSON.stringify({ kind: "EventList", items: [event(id)] }),
      stack.auditToken,
    );
    expect(await again.json()).toEqual({ accepted: 1, stored: 0, duplicates: 1 });
    expect(await storedBy(id)).toHaveLength(2);
  });
});

describe("reading decisions", () => {
  it("is allowed only to identities the apiserver authorises: the viewer gets 403", async () => {
    const read = (path: string, context: string) =>
      fetch(`${stack.dashboardUrl}${path}`, { headers: policyHeaders(context) });
    for (const path of ["/api/decisions?limit=1", "/api/decisions/1", "/api/decisions/stream"]) {
      const viewer = await read(path, stack.contexts.viewer);
      expect(viewer.status).toBe(403);
      const body = (await viewer.json()) as { reason: string; message: string; items?: unknown };
      expect(body.reason).toBe("Forbidden");
      expect(body.message).toContain("/portcullis/decisions");
      expect(body.items).toBeUndefined();
    }
    expect((await read("/api/decisions?limit=1", stack.contexts.admin)).status).toBe(200);
    expect((await read("/api/decisions?limit=1", stack.contexts.editor)).status).toBe(200);
  });
});
