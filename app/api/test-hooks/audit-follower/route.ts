import { z } from "zod";
import { handle, json } from "@/server/http/respond";
import { auditFileModeFollower } from "@/server/audit/file-mode";
import { testHooksEnabled, testHooksOff } from "@/server/testing/hooks";

export const dynamic = "force-dynamic";

/** The longest a request waits for the follower (a test asks again if it needs longer). */
const MAX_WAIT_MS = 60_000;

const query = z
  .object({
    /** Wait until the follower reads the file of this inode (decimal)… */
    ino: z.string().regex(/^\d{1,40}$/),
    /** …up to at least this offset. */
    offset: z.coerce.number().int().min(0),
    waitMs: z.coerce.number().int().min(0).max(MAX_WAIT_MS).default(MAX_WAIT_MS),
  })
  .strict();

/**
 * Test hook (PORTCULLIS_TEST_HOOKS=1, local mode only; 404 otherwise): what file mode has read.
 * Without parameters, its stats now. With `?ino=&offset=[&waitMs=]`, waits until it has read the
 * file of that inode to that offset (everything before it stored): `{ reached, stats }`. 409 when
 * file mode is off.
 */
export async function GET(request: Request): Promise<Response> {
  if (!testHooksEnabled()) return testHooksOff();
  return handle(async () => {
    const follower = auditFileModeFollower();
    if (!follower) {
      return json(
        { status: 409, reason: "Conflict", message: "file mode is off", cluster: "" },
        { status: 409 },
      );
    }
    const params = Object.fromEntries(new URL(request.url).searchParams);
    if (Object.keys(params).length === 0) return json({ reached: true, stats: follower.stats });
    const want = query.parse(params);
    follower.poke();
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(want.waitMs)]);
    const stats = await follower.until(
      (s) => s.readingId?.ino === want.ino && s.offset >= want.offset,
      signal,
    );
    return json({ reached: stats !== undefined, stats: follower.stats });
  });
}
