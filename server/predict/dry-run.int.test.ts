/**
 * Try it for real against the real apiserver: a connect subresource is never sent, whatever the
 * operation (it would run for real); a request the cluster cannot route gets the apiserver's own
 * answer as the verdict.
 */
import { beforeAll, expect, test } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { dryRun } from "./dry-run";

let stack: StackInfo;
let client: KubeClient;

beforeAll(() => {
  stack = readStack();
  client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
});

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default" } };
const base = {
  group: "",
  version: "v1",
  resource: "pods",
  namespace: "default",
  name: "web",
  object: pod,
};

test("no operation on a connect subresource is sent", async () => {
  for (const operation of ["CREATE", "UPDATE", "DELETE"] as const)
    for (const subresource of ["proxy", "exec"]) {
      const v = await dryRun(client, { ...base, operation, subresource });
      expect(v).toMatchObject({
        outcome: "unsupported",
        message: expect.stringContaining(`pods/${subresource} is a connect subresource`),
      });
    }
});

test("other subresources are sent, and the apiserver's answer is the verdict", async () => {
  // The router refuses a DELETE of a status (405) before admission.
  expect(
    await dryRun(client, { ...base, operation: "DELETE", subresource: "status" }),
  ).toMatchObject({
    outcome: "error",
    status: 405,
    message: "the server does not allow this method on the requested resource",
  });
  // A group version the cluster does not serve: its discovery is missing, and so is the path.
  expect(
    await dryRun(client, {
      ...base,
      group: "nosuch.portcullis.test",
      resource: "things",
      operation: "UPDATE",
      subresource: "status",
    }),
  ).toMatchObject({ outcome: "error", status: 404 });
});
