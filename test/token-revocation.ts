/**
 * For integration tests of revoked users: the apiserver keeps accepting a token it accepted
 * before for up to 10 s after its service account is deleted, so a test measures from the moment
 * the apiserver itself refuses it.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";

/**
 * Waits until the apiserver answers a SelfSubjectReview with `token` 401; returns when it did
 * (performance.now()). Any answer other than 201 (still accepted) or 401 fails the wait.
 */
export async function apiserverRefuses(stack: StackInfo, token: string): Promise<number> {
  const ca = readFileSync(stack.caFile);
  await expect
    .poll(
      async () => {
        const res = await httpsRequest(
          `${stack.server}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
          {
            method: "POST",
            ca,
            token,
            body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
          },
        );
        expect([201, 401]).toContain(res.status);
        return res.status;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(401);
  return performance.now();
}
