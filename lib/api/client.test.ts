/**
 * What callApi puts on the wire for a contract (URL, method, headers, body) and how it reads
 * failures: the requests are the ones the pages sent before the contracts, byte for byte.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, callApi, routeError, setTabContext, streamUrl } from "./client";
import { dashboardError } from "./contract";
import { decisionStreamRoute } from "./decisions";
import { healthUrl } from "./health";
import { uninitializedRoute } from "./initializers";
import { dryRunRoute, pickObjectRoute } from "./predict";
import { listCollectionRoute } from "./resources";
import { signOutRoute } from "./session";
import { backendPodsRoute, renameConfigurationRoute, webhookAccessRoute } from "./webhooks";

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function answer(status: number, body: string, statusText = ""): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal("fetch", (url: string, init: RequestInit = {}) => {
    sent.push({
      url,
      method: init.method ?? "GET",
      headers: init.headers as Record<string, string>,
      body: init.body as string | undefined,
    });
    return Promise.resolve(new Response(body, { status, statusText }));
  });
  return sent;
}

afterEach(() => {
  vi.unstubAllGlobals();
  setTabContext(undefined);
});

describe("callApi", () => {
  it("sends a body route's input as JSON, with the tab's context, at its filled-in path", async () => {
    setTabContext("kind-a");
    const sent = answer(200, JSON.stringify({ ok: true, steps: [] }));
    await callApi(renameConfigurationRoute, {
      params: { resource: "validatingwebhookconfigurations", name: "a b" },
      input: { newName: "b", resourceVersion: "7" },
    });
    expect(sent).toEqual([
      {
        url: "/api/webhooks/validatingwebhookconfigurations/a%20b/rename",
        method: "POST",
        headers: {
          Accept: "application/json",
          "x-portcullis-context": "kind-a",
          "Content-Type": "application/json",
        },
        body: '{"newName":"b","resourceVersion":"7"}',
      },
    ]);
  });

  it("sends a GET's input as its query, in the input's order, undefined left out", async () => {
    const sent = answer(200, "{}");
    await callApi(pickObjectRoute, { input: { resource: "core/v1/pods", namespace: "" } });
    await callApi(uninitializedRoute, { input: { stuckAfterSeconds: 30 } });
    await callApi(webhookAccessRoute, { input: { kinds: "legacy" } });
    await callApi(webhookAccessRoute, { input: {} });
    await callApi(backendPodsRoute, { input: { b: ["ns/app=a", "ns2/app=b,tier=c"] } });
    await callApi(listCollectionRoute, {
      params: { group: "core", version: "v1", resource: "namespaces" },
    });
    expect(sent.map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual([
      "GET /api/predict/object?resource=core%2Fv1%2Fpods&namespace= undefined",
      "GET /api/initializers/uninitialized?stuckAfterSeconds=30 undefined",
      "GET /api/webhooks/access?kinds=legacy undefined",
      "GET /api/webhooks/access undefined",
      "GET /api/webhooks/backend-pods?b=ns%2Fapp%3Da&b=ns2%2Fapp%3Db%2Ctier%3Dc undefined",
      "GET /api/resources/core/v1/namespaces undefined",
    ]);
  });

  it("sends no body and no Content-Type for a write without input", async () => {
    const sent = answer(200, '{"signedOut":true}');
    expect(await callApi(signOutRoute)).toEqual({ signedOut: true });
    expect(sent[0]).toEqual({
      url: "/api/session",
      method: "DELETE",
      headers: { Accept: "application/json" },
      body: undefined,
    });
  });

  it("throws the route's error as answered, with what its contract adds", async () => {
    const body = dashboardError({
      status: 409,
      reason: "Conflict",
      message: "taken",
      steps: [{ step: "create b", ok: false, message: "taken" }],
    });
    answer(409, JSON.stringify(body));
    const e: unknown = await callApi(renameConfigurationRoute, {
      params: { resource: "validatingwebhookconfigurations", name: "a" },
      input: { newName: "b", resourceVersion: "7" },
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(routeError(renameConfigurationRoute, e)).toEqual(body);
    expect((e as ApiError).status).toBe(409);
  });

  it("reads an answer that is not the API's error shape as one, naming no cluster", async () => {
    answer(502, "<html>bad gateway</html>", "Bad Gateway");
    const e = (await callApi(dryRunRoute, {
      input: {
        operation: "CREATE",
        group: "",
        version: "v1",
        resource: "pods",
        subresource: "",
        namespace: "default",
        name: "p",
        object: null,
      },
    }).catch((x: unknown) => x)) as ApiError;
    expect(e.toJSON()).toEqual({
      status: 502,
      reason: "Bad Gateway",
      message: "<html>bad gateway</html>",
      details: undefined,
      cluster: "",
    });
  });

  it("tells a dashboard that did not answer", async () => {
    vi.stubGlobal("fetch", () => Promise.reject(new TypeError("Failed to fetch")));
    const e = (await callApi(signOutRoute).catch((x: unknown) => x)) as ApiError;
    expect([e.status, e.reason, e.cluster]).toEqual([0, "DashboardUnreachable", ""]);
  });
});

describe("URLs built from contracts", () => {
  it("an event stream's URL carries the tab's context in its query", () => {
    expect(streamUrl(decisionStreamRoute, { query: "hook=a&after=3" }, "kind-a")).toBe(
      "/api/decisions/stream?hook=a&after=3&context=kind-a",
    );
  });

  it("the health report's URL: fields in a stable order, empty ones left out", () => {
    expect(healthUrl()).toBe("/api/admission-health");
    expect(
      healthUrl({ configuration: "x", policy: "", source: "ValidatingWebhookConfiguration" }),
    ).toBe("/api/admission-health?source=ValidatingWebhookConfiguration&configuration=x");
  });

  it("a dashboard error names no cluster, right after its message (as KubeApiError's JSON)", () => {
    expect(
      JSON.stringify(dashboardError({ status: 409, reason: "Conflict", message: "m", steps: [] })),
    ).toBe('{"status":409,"reason":"Conflict","message":"m","cluster":"","steps":[]}');
  });
});
