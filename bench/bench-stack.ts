/**
 * The stack a benchmark runs against: the one named by PORTCULLIS_STACK, or one it starts (and
 * stops when done), with the admin's apiserver client the seeding code writes through.
 */
import { readFileSync } from "node:fs";
import { readStack, startStack, type StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";

export type BenchStack = {
  info: StackInfo;
  /** The apiserver as the stack's admin. */
  kube: (method: string, path: string, body?: unknown) => ReturnType<typeof httpsRequest>;
  /** Stops the stack if this benchmark started it. */
  stop: () => Promise<void>;
};

export async function benchStack(options?: Parameters<typeof startStack>[0]): Promise<BenchStack> {
  const own = process.env.PORTCULLIS_STACK ? undefined : await startStack(options);
  const info = own ? own.info : readStack();
  const ca = readFileSync(info.caFile);
  return {
    info,
    kube: (method, path, body) =>
      httpsRequest(`${info.server}${path}`, { method, body, ca, token: info.tokens.admin }),
    stop: async () => {
      await own?.stop();
    },
  };
}
