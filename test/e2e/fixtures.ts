/** Playwright fixtures: the running stack, its dashboard as baseURL, and admin API access. */
import { test as base } from "@playwright/test";
import { readFileSync } from "node:fs";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest, type HttpsJsonResponse } from "../../cluster/https-json";

export interface Kube {
  /** Calls the apiserver directly as the given user (admin by default): tests read outcomes here. */
  request(
    method: string,
    path: string,
    body?: unknown,
    user?: "admin" | "viewer" | "editor",
  ): Promise<HttpsJsonResponse>;
}

export const test = base.extend<{ stack: StackInfo; kube: Kube }>({
  // eslint-disable-next-line no-empty-pattern
  stack: async ({}, use) => use(readStack()),
  baseURL: async ({ stack }, use) => use(stack.dashboardUrl),
  kube: async ({ stack }, use) => {
    const ca = readFileSync(stack.caFile);
    await use({
      request: (method, path, body, user = "admin") =>
        httpsRequest(`${stack.server}${path}`, { method, body, ca, token: stack.tokens[user] }),
    });
  },
});

export { expect } from "@playwright/test";
