/**
 * A kept-alive connection that went away while idle costs a GET nothing. The client reaches the
 * real apiserver through a TCP relay that closes the pooled connection the moment it is reused —
 * what the apiserver does to connections idle for 90 s, and load balancers in between do on their
 * own idle timeouts, which the client learns of only when it writes on it. A GET sent that way is
 * sent again on a new connection and answered; a write is not sent twice (the apiserver may have
 * acted on it) and fails with the reset.
 */
import { mkdtempSync } from "node:fs";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startTcpRelay, type TcpRelay } from "../../test/tcp-relay";
import { kubeconfigThroughRelay } from "../../test/dashboard-process";
import { KubeApiError } from "@/lib/k8s/errors";
import { KubeClient } from "./client";

const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
let stack: StackInfo;
let relay: TcpRelay;
let client: KubeClient;

beforeAll(async () => {
  stack = readStack();
  const server = new URL(stack.server);
  relay = await startTcpRelay(server.hostname, Number(server.port));
  const kc = new KubeConfig();
  kc.loadFromFile(
    kubeconfigThroughRelay(stack, relay, mkdtempSync(path.join(stack.dir, "client-reuse-"))),
  );
  kc.setCurrentContext(stack.contexts.admin);
  client = new KubeClient(stack.contexts.admin, kc);
});

afterAll(async () => {
  await relay?.close();
});

it("sends a GET again on a new connection when its kept-alive one turns out to be gone", async () => {
  expect(await client.request<{ kind: string }>({ path: PATH })).toMatchObject({
    kind: "ValidatingWebhookConfigurationList",
  });
  relay.resetNextReuse();
  expect(await client.request<{ kind: string }>({ path: PATH })).toMatchObject({
    kind: "ValidatingWebhookConfigurationList",
  });
});

it("does not send a write twice: a reset on a reused connection fails it", async () => {
  await client.request({ path: PATH });
  relay.resetNextReuse();
  const name = `client-reuse-${Date.now().toString(36)}`;
  const failed = await client
    .request({ method: "POST", path: PATH, query: { dryRun: "All" }, body: { metadata: { name } } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(failed).toBeInstanceOf(KubeApiError);
  expect((failed as KubeApiError).status).toBe(503);
  // The next request finds a connection that works.
  await expect(client.request({ path: PATH })).resolves.toBeDefined();
});
