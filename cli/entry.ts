/** Process entry of the bundle: runs main with the real argv and streams, then exits. */
import { main } from "./main";

const code = await main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
});
// Exit once stdout has drained (a pipe may still hold a large JSON report); idle keep-alive
// sockets to the apiserver must not hold the process open.
process.stdout.write("", () => process.exit(code));
