/** The admin's requests to the test stack's apiserver, as the oracles send them. */
import { readFileSync } from "node:fs";
import type { StackInfo } from "../../cluster/harness/stack";
import { httpsRequest, type HttpsJsonResponse } from "../../cluster/https-json";

export interface AdminKube {
  /** Any answer, as it came. */
  kube(method: string, path: string, body?: unknown): Promise<HttpsJsonResponse>;
  /** A 2xx answer's JSON body; anything else throws with the status and the body's start. */
  kubeOk(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
}

export function adminKube(stack: StackInfo): AdminKube {
  const ca = readFileSync(stack.caFile);
  const kube = (method: string, p: string, body?: unknown) =>
    httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
  return {
    kube,
    kubeOk: async (method, p, body) => {
      const res = await kube(method, p, body);
      if (res.status >= 300)
        throw new Error(`${method} ${p}: ${res.status} ${res.body.slice(0, 500)}`);
      return JSON.parse(res.body) as Record<string, unknown>;
    },
  };
}
