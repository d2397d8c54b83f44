/**
 * server/kube against the real apiserver: create, read, update with a stale resourceVersion
 * (the apiserver's 409), delete — and the typed errors on the way.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeClient, kubeClientFor } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import type { V1ValidatingWebhookConfiguration } from "@/lib/k8s/types";

const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
let client: KubeClient;
let viewer: KubeClient;

beforeAll(() => {
  const stack = readStack();
  // server/kube reads KUBECONFIG on each call.
  process.env.KUBECONFIG = stack.kubeconfig;
  client = kubeClientFor(stack.contexts.admin);
  viewer = kubeClientFor(stack.contexts.viewer);
});

function config(name: string): V1ValidatingWebhookConfiguration {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: "check.portcullis.test",
        clientConfig: { url: "https://127.0.0.1:1/never" },
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: ["portcullis.test"],
            apiVersions: ["v1"],
            resources: ["nothing"],
          },
        ],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      },
    ],
  };
}

describe("KubeClient against the real apiserver", () => {
  it("creates, reads, refuses a stale update with 409, updates, deletes", async () => {
    const name = `int-crud-${Date.now()}`;
    const created = await client.request<V1ValidatingWebhookConfiguration>({
      method: "POST",
      path: PATH,
      query: { fieldValidation: "Strict" },
      body: config(name),
    });
    expect(created.metadata?.name).toBe(name);
    const staleRv = created.metadata?.resourceVersion;
    expect(staleRv).toMatch(/^\d+$/);

    const read = await client.request<V1ValidatingWebhookConfiguration>({
      path: `${PATH}/${name}`,
    });
    expect(read.webhooks?.[0]?.failurePolicy).toBe("Fail"); // the v1 default, applied by the server

    // A first update moves the resourceVersion on…
    const first = structuredClone(read);
    first.webhooks![0]!.timeoutSeconds = 5;
    const updated = await client.request<V1ValidatingWebhookConfiguration>({
      method: "PUT",
      path: `${PATH}/${name}`,
      body: first,
    });
    expect(updated.metadata?.resourceVersion).not.toBe(staleRv);

    // …so a second update still carrying the old one is a conflict, reported with the apiserver's words.
    const stale = structuredClone(read);
    stale.webhooks![0]!.timeoutSeconds = 7;
    const err = await client
      .request({ method: "PUT", path: `${PATH}/${name}`, body: stale })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    const conflict = err as KubeApiError;
    expect(conflict.status).toBe(409);
    expect(conflict.reason).toBe("Conflict");
    expect(conflict.message).toContain("the object has been modified");
    expect(conflict.cluster).toBe(client.server);

    const after = await client.request<V1ValidatingWebhookConfiguration>({
      path: `${PATH}/${name}`,
    });
    expect(after.webhooks?.[0]?.timeoutSeconds).toBe(5);

    await client.request({ method: "DELETE", path: `${PATH}/${name}` });
    const gone = await client.request({ path: `${PATH}/${name}` }).catch((e: unknown) => e);
    expect((gone as KubeApiError).status).toBe(404);
    expect((gone as KubeApiError).reason).toBe("NotFound");
  });

  it("reports validation failures as 422 Invalid with the apiserver's causes", async () => {
    const bad = config(`int-invalid-${Date.now()}`);
    bad.webhooks![0]!.timeoutSeconds = 31;
    const err = (await client
      .request({ method: "POST", path: PATH, query: { dryRun: "All" }, body: bad })
      .catch((e: unknown) => e)) as KubeApiError;
    expect(err.status).toBe(422);
    expect(err.reason).toBe("Invalid");
    expect(err.details?.causes?.map((c) => c.field)).toEqual(["webhooks[0].timeoutSeconds"]);
  });

  it("refuses the viewer's writes with 403 Forbidden", async () => {
    const err = (await viewer
      .request({ method: "POST", path: PATH, body: config(`int-viewer-${Date.now()}`) })
      .catch((e: unknown) => e)) as KubeApiError;
    expect(err.status).toBe(403);
    expect(err.reason).toBe("Forbidden");
    // …but lets it read.
    const list = await viewer.request<{ items: unknown[] }>({ path: PATH });
    expect(Array.isArray(list.items)).toBe(true);
  });

  it("turns an unreachable server into a 503 Unreachable error naming the server", async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "gone", server: "https://127.0.0.1:9", skipTLSVerify: true }],
      users: [{ name: "u", token: "x" }],
      contexts: [{ name: "gone", cluster: "gone", user: "u" }],
      currentContext: "gone",
    });
    const err = (await new KubeClient("gone", kc)
      .request({ path: "/version" })
      .catch((e: unknown) => e)) as KubeApiError;
    expect(err.status).toBe(503);
    expect(err.reason).toBe("Unreachable");
    expect(err.message).toContain("https://127.0.0.1:9");
  });
});
