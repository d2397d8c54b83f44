/**
 * Safe rename against the real control plane: once the new configuration is created, the rename
 * runs to its end (verify, delete the old one) or rolls back even when the caller goes away —
 * a browser that closes the tab or navigates off the order page aborts the request, and an
 * aborted rename must not leave both configurations calling every hook twice. A delete of the old
 * name whose answer is lost (it happened, the connection dropped) must not be "rolled back" by
 * deleting the new name, the only copy left.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import type { KubeClient, KubeRequest } from "./client";
import { kubeClientFor } from "./client";
import { createConfiguration, getConfiguration, renameConfiguration } from "./webhooks";
import type { ConfigObject } from "@/lib/api/webhooks";
import { KubeApiError } from "@/lib/k8s/errors";

const MWC = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
let admin: KubeClient;
const made: string[] = [];

beforeAll(() => {
  const stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  admin = kubeClientFor(stack.contexts.admin);
});

afterAll(async () => {
  for (const name of made)
    await admin.request({ method: "DELETE", path: `${MWC}/${name}` }).catch(() => undefined);
});

function config(name: string): ConfigObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name },
    webhooks: ["one.flows.io", "two.flows.io"].map((h) => ({
      name: h,
      clientConfig: { service: { namespace: "hooks", name: "inject" } },
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
      ],
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    })),
  };
}

/** The admin's client, aborting `controller` as soon as a request of `method` has been answered. */
function abortingAfter(method: KubeRequest["method"], controller: AbortController): KubeClient {
  return new Proxy(admin, {
    get(target, prop, receiver) {
      if (prop !== "request") return Reflect.get(target, prop, receiver) as unknown;
      return async (req: KubeRequest) => {
        const out: unknown = await target.request(req);
        if ((req.method ?? "GET") === method) controller.abort();
        return out;
      };
    },
  });
}

/** A stored configuration to rename (`from`), a new name (`to`) and its resourceVersion. */
async function storedToRename(): Promise<{ from: string; to: string; rv: string }> {
  const id = Math.random().toString(36).slice(2, 8);
  const from = `z-rename-${id}`;
  const to = `a-rename-${id}`;
  made.push(from, to);
  const old = await createConfiguration(admin, "mutatingwebhookconfigurations", config(from), {
    dryRun: false,
  });
  return { from, to, rv: old.metadata?.resourceVersion ?? "" };
}

async function exists(name: string): Promise<boolean> {
  return getConfiguration(admin, "mutatingwebhookconfigurations", name).then(
    () => true,
    () => false,
  );
}

describe("rename of a webhook configuration", () => {
  it("finishes (or rolls back) when the caller aborts after the new name was created", async () => {
    const { from, to, rv } = await storedToRename();
    const controller = new AbortController();
    const result = await renameConfiguration(
      abortingAfter("POST", controller),
      "mutatingwebhookconfigurations",
      from,
      to,
      rv,
      controller.signal,
    );
    expect(controller.signal.aborted).toBe(true);
    // Exactly one of the two exists: never both (every hook called twice), never neither.
    const both = [await exists(from), await exists(to)];
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(result.ok).toBe(both[1]);
  });

  it("writes nothing when the caller aborts before the new name is created", async () => {
    const { from, to, rv } = await storedToRename();
    const controller = new AbortController();
    const result = await renameConfiguration(
      abortingAfter("GET", controller),
      "mutatingwebhookconfigurations",
      from,
      to,
      rv,
      controller.signal,
    );
    expect(result.ok).toBe(false);
    expect(result.error?.reason).toBe("Aborted");
    expect([await exists(from), await exists(to)]).toEqual([true, false]);
  });

  /** The admin's client, whose answer to the DELETE of `name` is lost after the apiserver did it. */
  function losingDeleteOf(name: string, opts: { thenUnreachable: boolean }): KubeClient {
    let lost = false;
    const unreachable = () =>
      new KubeApiError({
        status: 503,
        reason: "Unreachable",
        message: "connection reset",
        cluster: "",
      });
    return new Proxy(admin, {
      get(target, prop, receiver) {
        if (prop !== "request") return Reflect.get(target, prop, receiver) as unknown;
        return async (req: KubeRequest) => {
          if (lost && opts.thenUnreachable) throw unreachable();
          const out: unknown = await target.request(req);
          if (req.method === "DELETE" && req.path.endsWith(`/${name}`)) {
            lost = true;
            throw unreachable();
          }
          return out;
        };
      },
    });
  }

  it("keeps the new name when the old one's delete happened but its answer was lost", async () => {
    const { from, to, rv } = await storedToRename();
    const result = await renameConfiguration(
      losingDeleteOf(from, { thenUnreachable: false }),
      "mutatingwebhookconfigurations",
      from,
      to,
      rv,
    );
    expect([await exists(from), await exists(to)]).toEqual([false, true]);
    expect(result.ok).toBe(true);
  });

  it("rolls nothing back, and says so, when whether the old one was deleted cannot be told", async () => {
    const { from, to, rv } = await storedToRename();
    const result = await renameConfiguration(
      losingDeleteOf(from, { thenUnreachable: true }),
      "mutatingwebhookconfigurations",
      from,
      to,
      rv,
    );
    expect(result.ok).toBe(false);
    expect(result.steps.at(-1)?.message).toContain("nothing was rolled back");
    // The apiserver did delete the old name: the new one is the only copy, and it is kept.
    expect([await exists(from), await exists(to)]).toEqual([false, true]);
  });
});
