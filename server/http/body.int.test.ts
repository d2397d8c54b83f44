/** Write routes refuse malformed and oversized bodies with a clear status, and change nothing. */
import { beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { policyHeaders } from "../../test/api-headers";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";

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
