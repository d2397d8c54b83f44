import { startStack } from "../../cluster/harness/stack";

/**
 * Reuses the stack named by PORTCULLIS_STACK or starts one (control plane + dashboard) for this
 * run; workers read it from the environment. Returns the teardown.
 */
export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.PORTCULLIS_STACK) return undefined;
  const stack = await startStack();
  process.env.PORTCULLIS_STACK = stack.file;
  return () => stack.stop();
}
