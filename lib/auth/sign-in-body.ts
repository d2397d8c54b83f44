/**
 * The body of a token sign-in (POST /api/session). The token is trimmed before its length is
 * checked: one of only blanks would reach the apiserver as `Authorization: Bearer ` with nothing
 * after it, which the apiserver does not count as a token at all (bearertoken.go: an empty one is
 * "no credentials"), so where anonymous requests are enabled the sign-in would be judged as
 * system:anonymous instead of being refused. Pure.
 */
import { z } from "zod";

export const tokenSignInBody = z.object({ token: z.string().trim().min(1).max(16_384) }).strict();
