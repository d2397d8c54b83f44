/**
 * The list API served from the watch hub, against the real apiserver through the stack's
 * dashboard: it lists what the apiserver lists (same items, same resourceVersions, the
 * apiserver's order), follows changes made elsewhere, gives the same List gzipped, and a live
 * stream opened at the resourceVersion the browser holds starts with CURRENT instead of the whole
 * snapshot again.
 */
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { policyHeaders } from "../../test/api-headers";

const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const COLLECTION = "admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
type Item = { metadata: { name: string; resourceVersion: string }; webhooks?: unknown[] };
type List = {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string };
  items: Item[];
};

let stack: StackInfo;
const prefix = `lfh-${Date.now().toString(36)}`;
const names = [0, 1, 2].map((i) => `${prefix}-${i}`);

function hook(name: string, timeoutSeconds: number) {
  return {
    name: `h.${name}.example.com`,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    timeoutSeconds,
    clientConfig: { url: `https://127.0.0.1:9/${name}` },
    namespaceSelector: { matchLabels: { "portcullis-test-never": "set" } },
  };
}

async function apiserver(method: string, path: string, body?: unknown) {
  return httpsRequest(`${stack.server}${path}`, {
    method,
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
    ...(body === undefined ? {} : { body }),
  });
}

/** The dashboard's list API as a page calls it; raw bytes and headers (no automatic gunzip). */
function dashboardList(
  encoding: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const url = new URL(`api/resources/${COLLECTION}`, stack.dashboardUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { headers: { ...policyHeaders(stack.contexts.admin), "accept-encoding": encoding } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** This test's configurations and their resourceVersions (other clients may share the stack). */
const summary = (l: List) =>
  l.items
    .filter((i) => i.metadata.name.startsWith(`${prefix}-`))
    .map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`);

/** Polls until the dashboard's list equals the apiserver's (the hub follows its watch). */
async function dashboardCaughtUp(): Promise<{ dashboard: List; apiserver: List }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const truth = JSON.parse((await apiserver("GET", PATH)).body) as List;
    const res = await dashboardList("identity");
    expect(res.status).toBe(200);
    const ours = JSON.parse(res.body.toString("utf8")) as List;
    if (JSON.stringify(summary(ours)) === JSON.stringify(summary(truth)))
      return { dashboard: ours, apiserver: truth };
    if (Date.now() > deadline) {
      expect(summary(ours)).toEqual(summary(truth));
      throw new Error("unreachable");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  stack = readStack();
  for (const [i, name] of names.entries()) {
    const res = await apiserver("POST", PATH, {
      metadata: { name },
      webhooks: [hook(name, 1 + i)],
    });
    expect(res.status).toBe(201);
  }
});

afterAll(async () => {
  for (const name of names) await apiserver("DELETE", `${PATH}/${name}`);
});

describe("list API from the watch hub", () => {
  it("lists what the apiserver lists, in its order, and follows changes made elsewhere", async () => {
    const { dashboard, apiserver: truth } = await dashboardCaughtUp();
    expect(dashboard.kind).toBe("ValidatingWebhookConfigurationList");
    expect(dashboard.apiVersion).toBe("admissionregistration.k8s.io/v1");
    const ours = dashboard.items.find((i) => i.metadata.name === names[1]);
    expect(ours).toMatchObject(truth.items.find((i) => i.metadata.name === names[1]) as Item);
    const ordered = dashboard.items.map((i) => i.metadata.name);
    expect(ordered).toEqual([...ordered].sort());

    // A change and a deletion made through the apiserver, not the dashboard.
    const got = JSON.parse((await apiserver("GET", `${PATH}/${names[0]}`)).body) as Item;
    const put = await apiserver("PUT", `${PATH}/${names[0]}`, {
      ...got,
      webhooks: [hook(names[0] as string, 7)],
    });
    expect(put.status).toBe(200);
    expect((await apiserver("DELETE", `${PATH}/${names[2]}`)).status).toBe(200);
    const after = (await dashboardCaughtUp()).dashboard;
    const changed = after.items.find((i) => i.metadata.name === names[0]);
    expect((changed?.webhooks?.[0] as { timeoutSeconds?: number }).timeoutSeconds).toBe(7);
    expect(after.items.some((i) => i.metadata.name === names[2])).toBe(false);
  });

  it("gives the same List gzipped (once) when asked", async () => {
    await dashboardCaughtUp();
    const plain = await dashboardList("identity");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const zipped = await dashboardList("gzip");
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    const unzipped = JSON.parse(gunzipSync(zipped.body).toString("utf8")) as List;
    expect(unzipped.kind).toBe("ValidatingWebhookConfigurationList");
    expect(summary(unzipped)).toEqual(summary(JSON.parse(plain.body.toString("utf8")) as List));
  });

  it("starts a live stream with CURRENT when the browser holds the hub's resourceVersion", async () => {
    const { dashboard } = await dashboardCaughtUp();
    const first = async (rv: string) => {
      const abort = new AbortController();
      const res = await fetch(
        `${stack.dashboardUrl}/api/watch?r=${COLLECTION}&rv=${encodeURIComponent(rv)}`,
        { headers: policyHeaders(stack.contexts.admin), signal: abort.signal },
      );
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        const data = text.split("\n").find((l) => l.startsWith("data: "));
        if (data && text.includes("\n\n", text.indexOf("data: "))) {
          abort.abort();
          return JSON.parse(data.slice(6)) as {
            type: string;
            resourceVersion: string;
            items?: unknown[];
          };
        }
      }
      throw new Error("stream ended before its first message");
    };
    // The hub's resourceVersion can move between the two requests (a bookmark): then a SYNC at
    // another resourceVersion is right, and the list is read again.
    let held = dashboard.metadata.resourceVersion;
    let current = await first(held);
    for (let i = 0; i < 3 && current.type === "SYNC"; i++) {
      expect(current.resourceVersion).not.toBe(held);
      held = (JSON.parse((await dashboardList("identity")).body.toString()) as List).metadata
        .resourceVersion;
      current = await first(held);
    }
    expect(current.type).toBe("CURRENT");
    expect(current.items).toBeUndefined();
    const stale = await first("1");
    expect(stale.type).toBe("SYNC");
    expect(stale.items?.length).toBe(dashboard.items.length);
  });
});
