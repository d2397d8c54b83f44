/**
 * A token file as operators write it — `kubectl create token NAME > file` ends it with a newline,
 * as editors do — still authenticates against the real apiserver: shared mode's own
 * service account (PORTCULLIS_SERVICE_ACCOUNT_TOKEN_FILE, which the metrics scrape and the shared
 * watch cache act as) reads it the way client-go does, whitespace around the token trimmed.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { kubeClientFor } from "./client";

const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const NAMES = [
  "PORTCULLIS_MODE",
  "PORTCULLIS_APISERVER_URL",
  "PORTCULLIS_APISERVER_CA_FILE",
  "PORTCULLIS_SERVICE_ACCOUNT_TOKEN_FILE",
] as const;
const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));

let stack: StackInfo;
let dir: string;

beforeAll(() => {
  stack = readStack();
  dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-token-file-"));
});

afterEach(() => {
  for (const n of NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
});

describe("shared mode's service account token file", () => {
  it("authenticates with a token file that ends in a newline (kubectl create token > file)", async () => {
    const file = path.join(dir, "token");
    writeFileSync(file, `${stack.tokens.viewer}\n`, { mode: 0o600 });
    Object.assign(process.env, {
      PORTCULLIS_MODE: "shared",
      PORTCULLIS_APISERVER_URL: stack.server,
      PORTCULLIS_APISERVER_CA_FILE: stack.caFile,
      PORTCULLIS_SERVICE_ACCOUNT_TOKEN_FILE: file,
    });
    const list = await kubeClientFor(SHARED_CONTEXT).request<{ kind: string }>({ path: PATH });
    expect(list.kind).toBe("ValidatingWebhookConfigurationList");
    // The token really was the viewer's: the apiserver names that user when it refuses a write.
    await expect(
      kubeClientFor(SHARED_CONTEXT).request({
        method: "POST",
        path: PATH,
        query: { dryRun: "All" },
        body: {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          metadata: { name: "portcullis-token-file" },
        },
      }),
    ).rejects.toMatchObject({ status: 403, message: expect.stringContaining('"viewer"') });
  });
});
