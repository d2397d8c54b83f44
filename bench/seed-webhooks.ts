/**
 * Seeding ValidatingWebhookConfigurations through the stack's apiserver for benchmarks that need
 * many hooks, and removing them afterwards.
 */
import { readFileSync } from "node:fs";
import { readStack, startStack, type Stack, type StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";

const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

/** The median of some samples. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/**
 * Hook `h` of configuration `config`: an unreachable url backend, failure policies and timeouts
 * varied by position, and `spec` (rules, selectors) on top.
 */
export function benchHook(
  config: string,
  h: number,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return {
    name: `h${h}.${config}.example.com`,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    failurePolicy: h % 3 === 0 ? "Ignore" : "Fail",
    timeoutSeconds: 1 + (h % 10),
    clientConfig: { url: `https://127.0.0.1:9/${config}/${h}` },
    ...spec,
  };
}

/** Creates `count` configurations `<prefix>-000…`, each with the hooks `hooksOf` gives. */
export async function seedValidatingConfigs(
  info: StackInfo,
  prefix: string,
  count: number,
  hooksOf: (config: number, name: string) => Array<Record<string, unknown>>,
): Promise<string[]> {
  const ca = readFileSync(info.caFile);
  const names: string[] = [];
  for (let c = 0; c < count; c++) {
    const name = `${prefix}-${String(c).padStart(3, "0")}`;
    const res = await httpsRequest(`${info.server}${PATH}`, {
      method: "POST",
      ca,
      token: info.tokens.admin,
      body: { metadata: { name }, webhooks: hooksOf(c, name) },
    });
    if (res.status !== 201) throw new Error(`seed ${name}: ${res.status} ${res.body}`);
    names.push(name);
  }
  return names;
}

/** Deletes the seeded configurations. */
export async function deleteValidatingConfigs(info: StackInfo, names: string[]): Promise<void> {
  const ca = readFileSync(info.caFile);
  for (const n of names)
    await httpsRequest(`${info.server}${PATH}/${n}`, {
      method: "DELETE",
      ca,
      token: info.tokens.admin,
    });
}

/** The stack named by PORTCULLIS_STACK, or one started for this benchmark (`own`, to stop). */
export async function benchStack(): Promise<{ info: StackInfo; own: Stack | undefined }> {
  if (process.env.PORTCULLIS_STACK) return { info: readStack(), own: undefined };
  const own = await startStack();
  return { info: own.info, own };
}
