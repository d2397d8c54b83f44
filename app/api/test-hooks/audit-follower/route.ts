import { auditFollowerRoute, MAX_FOLLOWER_WAIT_MS } from "@/lib/api/test-hooks";
import { fail, handle, respond } from "@/server/http/respond";
import { auditFileModeFollower } from "@/server/audit/file-mode";
import { testHooksEnabled, testHooksOff } from "@/server/testing/hooks";

export const dynamic = "force-dynamic";

/**
 * Test hook (PORTCULLIS_TEST_HOOKS=1, local mode only; 404 otherwise): what file mode has read.
 * Without parameters, its stats now. With `?ino=&offset=[&waitMs=]`, waits until it has read the
 * file of that inode to that offset (everything before it stored): `{ reached, stats }`. 409 when
 * file mode is off.
 */
export async function GET(request: Request): Promise<Response> {
  if (!testHooksEnabled()) return testHooksOff();
  return handle(async () => {
    const want = auditFollowerRoute.input.parse(
      Object.fromEntries(new URL(request.url).searchParams),
    );
    const follower = auditFileModeFollower();
    if (!follower) {
      return fail(
        auditFollowerRoute,
        { status: 409, reason: "Conflict", message: "file mode is off" },
        { status: 409 },
      );
    }
    const { ino, offset } = want;
    if (ino === undefined || offset === undefined) {
      return respond(auditFollowerRoute, { reached: true, stats: follower.stats });
    }
    follower.poke();
    const signal = AbortSignal.any([
      request.signal,
      AbortSignal.timeout(want.waitMs ?? MAX_FOLLOWER_WAIT_MS),
    ]);
    const stats = await follower.until(
      (s) => s.readingId?.ino === ino && s.offset >= offset,
      signal,
    );
    return respond(auditFollowerRoute, { reached: stats !== undefined, stats: follower.stats });
  });
}
