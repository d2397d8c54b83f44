/**
 * Vitest global setup for integration tests: reuses the stack named by PORTCULLIS_STACK (as
 * `npm test` provides) or starts one — the real control plane and the dashboard — and stops it
 * after the run. A missing control plane is a failure, never a skip.
 */
import { startStack } from "../cluster/harness/stack";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.PORTCULLIS_STACK) return undefined;
  const stack = await startStack({ dashboard: process.env.PORTCULLIS_NO_DASHBOARD !== "1" });
  process.env.PORTCULLIS_STACK = stack.file;
  return () => stack.stop();
}
