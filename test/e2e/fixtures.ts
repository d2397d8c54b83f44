/**
 * Playwright fixtures: the running stack, its dashboard as baseURL, admin API access, and what a
 * test makes (Kubernetes objects, namespaces, servers, dashboards), undone once it is over —
 * passed or failed — in the reverse order it was made, so no spec writes its own `finally`.
 */
import { test as base, expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest, type HttpsJsonResponse } from "../../cluster/https-json";
import { policyHeaders } from "../api-headers";
import { uniqueName } from "./webhooks-helpers";
import {
  waitForManifestSet,
  writeStaticManifests,
  type ManifestPluginName,
} from "../../cluster/harness/static-manifests";

export interface Kube {
  /** Calls the apiserver directly as the given user (admin by default): tests read outcomes here. */
  request(
    method: string,
    path: string,
    body?: unknown,
    user?: "admin" | "viewer" | "editor",
  ): Promise<HttpsJsonResponse>;
}

export interface Cleanup {
  /** Runs `undo` once the test is over, passed or failed; the last deferred runs first. */
  defer(undo: () => unknown): void;
}

export interface KubeObjects {
  /**
   * Creates an object as admin (POST to its collection, e.g. `/api/v1/namespaces`), expects 201
   * and deletes it once the test is over. Returns the apiserver's response.
   */
  create(collection: string, body: { metadata: { name: string } }): Promise<HttpsJsonResponse>;
  /** Deletes the object at `path` once the test is over (nothing happens when it is not there). */
  deleteAfter(path: string): void;
  /** Creates a namespace named `uniqueName(prefix)`, deleted once the test is over; its name. */
  namespace(prefix: string): Promise<string>;
}

/** The stack's dashboard as a test drives it outside a page, for the admin's context. */
export interface DashboardApi {
  /** A GET or POST to the dashboard's API with the headers its own pages send. */
  call(method: "GET" | "POST", path: string): Promise<Response>;
  /**
   * Makes the dashboard read the apiserver's /metrics now (a test hook, server/testing/hooks.ts):
   * every call the apiserver counted before this shows in the next health report, without
   * waiting for the scrape interval. Returns the scraper's generation after the read.
   */
  scrapeMetrics(): Promise<number>;
}

/** The local apiserver's static manifest directories, as a test changes them. */
export interface StaticManifests {
  /**
   * Writes `objects` to `<plugin's directory>/<fileName>` and waits until the apiserver has
   * loaded the new set; the file is removed (and the set without it loaded) once the test is over.
   */
  write(
    plugin: ManifestPluginName,
    fileName: string,
    objects: readonly Record<string, unknown>[],
  ): Promise<void>;
}

export const test = base.extend<{
  stack: StackInfo;
  kube: Kube;
  cleanup: Cleanup;
  objects: KubeObjects;
  dashboardApi: DashboardApi;
  staticManifests: StaticManifests;
}>({
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
  // eslint-disable-next-line no-empty-pattern
  cleanup: async ({}, use) => {
    const undos: Array<() => unknown> = [];
    await use({ defer: (undo) => void undos.push(undo) });
    // Every undo runs even when one fails; the first failure then fails the test.
    const failures: unknown[] = [];
    for (const undo of undos.reverse()) {
      try {
        await undo();
      } catch (e) {
        failures.push(e);
      }
    }
    if (failures.length > 0) throw failures[0];
  },
  objects: async ({ kube, cleanup }, use) => {
    const deleteAfter = (path: string) =>
      cleanup.defer(async () => {
        const res = await kube.request("DELETE", path);
        if (res.status >= 300 && res.status !== 404) {
          throw new Error(`cleaning up: DELETE ${path} answered ${res.status} ${res.body}`);
        }
      });
    const create: KubeObjects["create"] = async (collection, body) => {
      // Deleted after even when the create's answer is lost: the DELETE of nothing is harmless.
      deleteAfter(`${collection}/${body.metadata.name}`);
      const res = await kube.request("POST", collection, body);
      expect(res.status, `create ${collection}/${body.metadata.name}: ${res.body}`).toBe(201);
      return res;
    };
    await use({
      create,
      deleteAfter,
      namespace: async (prefix) => {
        const name = uniqueName(prefix);
        await create("/api/v1/namespaces", { metadata: { name } });
        return name;
      },
    });
  },
  dashboardApi: async ({ stack }, use) => {
    const call = (method: "GET" | "POST", path: string) =>
      fetch(new URL(path, stack.dashboardUrl), {
        method,
        headers: policyHeaders(stack.contexts.admin),
      });
    await use({
      call,
      scrapeMetrics: async () => {
        const res = await call("POST", "/api/test-hooks/metrics-scrape");
        expect(res.status, "the stack's dashboard serves the test hooks").toBe(200);
        return ((await res.json()) as { generation: number }).generation;
      },
    });
  },
  staticManifests: async ({ stack, cleanup }, use) => {
    await use({
      write: async (plugin, fileName, objects) => {
        cleanup.defer(() =>
          waitForManifestSet(stack, plugin, writeStaticManifests(stack, plugin, fileName, [])),
        );
        await waitForManifestSet(
          stack,
          plugin,
          writeStaticManifests(stack, plugin, fileName, objects),
        );
      },
    });
  },
});

export { expect };
