import "server-only";
import { dashboardMode } from "@/lib/auth/mode";
import { dashboardError } from "@/lib/api/contract";
import { errorResponse } from "@/server/http/respond";

/**
 * Whether the test-only endpoints under /api/test-hooks answer: only when the process was started
 * with PORTCULLIS_TEST_HOOKS=1, and never in shared mode (a dashboard others sign in to), whatever
 * the variable says. They let a test wait on the server's state (a scrape made, the audit log read
 * to a given size) instead of on its clocks; they change nothing a user sees.
 */
export function testHooksEnabled(env: Record<string, string | undefined> = process.env): boolean {
  if (env.PORTCULLIS_TEST_HOOKS !== "1") return false;
  try {
    return dashboardMode(env.PORTCULLIS_MODE) === "local";
  } catch {
    return false;
  }
}

/** The answer of a test hook that is off: the same 404 as a path that does not exist. */
export function testHooksOff(): Response {
  return errorResponse(dashboardError({ status: 404, reason: "NotFound", message: "not found" }));
}
