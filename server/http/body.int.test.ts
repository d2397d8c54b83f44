/** Write routes refuse malformed and oversized bodies with a clear status, and change nothing. */
import { beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { policyHeaders } from "../../test/api-headers";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { apiRoutes } from "../../test/api-routes";
import { MAX_JSON_DEPTH, tooDeepMessage } from "@/lib/http/json-limits";

let stack: StackInfo;
const name = `hostile-${Date.now()}`;
const path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

beforeAll(async () => {
  stack = readStack();
  const res = await httpsRequest(`${stack.server}${path}`, {
    method: "POST",
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
    body: { metadata: { name }, webhooks: [] },
  });
  expect(res.status).toBe(201);
});

async function stored(): Promise<string> {
  const res = await httpsRequest(`${stack.server}${path}/${name}`, {
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
  });
  return (JSON.parse(res.body) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
}

describe("write bodies", () => {
  const url = () => `${stack.dashboardUrl}/api/webhooks/validatingwebhookconfigurations/${name}`;

  it("answers malformed JSON with 400 BadRequest", async () => {
    const before = await stored();
    const res = await fetch(url(), {
      method: "PUT",
      headers: { "content-type": "application/json", ...policyHeaders(stack.contexts.admin) },
      body: "{oops",
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { reason: string; message: string };
    expect(body.reason).toBe("BadRequest");
    expect(body.message).toMatch(/not valid JSON/);
    expect(await stored()).toBe(before);
  });

  it("answers a body over 3 MiB with 413", async () => {
    const before = await stored();
    const res = await fetch(url(), {
      method: "PUT",
      headers: { "content-type": "application/json", ...policyHeaders(stack.contexts.admin) },
      body: JSON.stringify({ object: { pad: "x".repeat(4 * 1024 * 1024) } }),
    });
    expect(res.status).toBe(413);
    expect(await stored()).toBe(before);
  });

  it("answers a well-formed body of the wrong shape with 400 naming the field", async () => {
    const res = await fetch(url(), {
      method: "DELETE",
      headers: { "content-type": "application/json", ...policyHeaders(stack.contexts.admin) },
      body: JSON.stringify({ uid: 5 }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/uid/);
    expect(await stored()).toMatch(/^\d+$/);
  });
});

/** The routes whose handlers read a JSON body, found in their source, with a concrete URL. */
const parsing = apiRoutes()
  .filter((r) => r.handler.includes("readJson("))
  .map((r) => ({
    method: r.method,
    label: `${r.method} ${r.urlPath}`,
    concrete: (name: string) =>
      r.urlPath.replace("x-resource", "validatingwebhookconfigurations").replace("x-name", name),
  }));

describe("limits on every route that parses a body", () => {
  it("finds the parsing routes", () => {
    // Write, delete, rename, dry run, policy try, context, sign-in (token and OIDC callback).
    expect(parsing.length).toBeGreaterThanOrEqual(9);
  });

  it.each(parsing.map((r) => [r.label, r] as const))(
    "%s: 20,000 levels of nesting answer 400 saying so, and change nothing",
    async (_label, r) => {
      const before = await stored();
      const deep = `{"object":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
      const res = await fetch(`${stack.dashboardUrl}${r.concrete(name)}`, {
        method: r.method,
        headers: { "content-type": "application/json", ...policyHeaders(stack.contexts.admin) },
        body: deep,
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { reason: string; message: string };
      expect(body.reason).toBe("BadRequest");
      expect(body.message).toBe(tooDeepMessage(MAX_JSON_DEPTH));
      expect(await stored()).toBe(before);
    },
  );

  it.each(parsing.map((r) => [r.label, r] as const))(
    "%s: a body over 3 MiB answers 413",
    async (_label, r) => {
      const res = await fetch(`${stack.dashboardUrl}${r.concrete(name)}`, {
        method: r.method,
        headers: { "content-type": "application/json", ...policyHeaders(stack.contexts.admin) },
        body: JSON.stringify({ object: { pad: "x".repeat(3 * 1024 * 1024 + 1) } }),
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { reason: string }).reason).toBe("RequestEntityTooLarge");
    },
  );

  it("nesting at the limit itself is parsed (and judged on its shape)", async () => {
    const res = await fetch(`${stack.dashboardUrl}/api/policies/try`, {
      method: "POST",
      headers: { "content-type": "application/json", ...policyHeaders(stack.contexts.admin) },
      body: `{"object":${"[".repeat(MAX_JSON_DEPTH - 1)}${"]".repeat(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^object/);
  });
});

describe("a refused body's connection", () => {
  /**
   * Declares `declared` bytes in a PUT over a raw socket, sends only its first MiB (refused at the
   * door, it stays unread in the sockets' buffers), and once the answer and the server's FIN
   * arrive writes one byte more, as a client still sending its body does. Resolves with the
   * answer and the first socket error.
   */
  function sendRefused(declared: number): Promise<{ answer: string; error?: string }> {
    const url = new URL(
      `${stack.dashboardUrl}/api/webhooks/validatingwebhookconfigurations/${name}`,
    );
    const head =
      `PUT ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
      Object.entries(policyHeaders(stack.contexts.admin))
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("") +
      `content-length: ${declared}\r\n\r\n`;
    return new Promise((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      let answer = "";
      let error: string | undefined;
      socket.setEncoding("latin1");
      socket.on("data", (d: string) => (answer += d));
      socket.on("end", () =>
        socket.write("x", (e) => {
          if (e) error ??= (e as NodeJS.ErrnoException).code ?? e.message;
          socket.destroy();
        }),
      );
      socket.on("error", (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
      socket.on("close", () => resolve({ answer, ...(error ? { error } : {}) }));
      socket.on("connect", () => {
        socket.write(head);
        socket.write(Buffer.alloc(1 << 20, 0x20));
      });
    });
  }

  it("is shut after the answer (FIN) and not reset under a client still sending", async () => {
    // Closed at once with the body's bytes unread, the connection is reset (RST): the client's
    // next write fails (EPIPE), and a client slower to read than to write (fetch under load:
    // "fetch failed") loses the answer itself. The door shuts its side and waits before closing.
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => sendRefused(16 << 20)));
    for (const o of outcomes) {
      expect(o.error).toBeUndefined();
      expect(o.answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(o.answer).toMatch(/RequestEntityTooLarge/);
    }
  });
});
