/**
 * `npm run stack`: starts the test stack (control plane + the dashboard's production build) and
 * keeps it running, so test runs can reuse it: `PORTCULLIS_STACK=<printed path> npx vitest …`.
 * `--no-dashboard` starts only the control plane.
 */
import { startStack } from "../cluster/harness/stack";

const stack = await startStack({ dashboard: !process.argv.includes("--no-dashboard") });
process.stdout.write(`PORTCULLIS_STACK=${stack.file}\n`);
let stopping = false;
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(s, () => {
    if (stopping) return;
    stopping = true;
    void stack.stop().then(() => process.exit(0));
  });
}
