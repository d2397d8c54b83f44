import { metricsProgressRoute, scrapeMetricsNowRoute } from "@/lib/api/test-hooks";
import { handle, respond } from "@/server/http/respond";
import { contextOf, metricsClientFor } from "@/server/kube/identity";
import { admissionMetricsProgress, scrapeAdmissionMetricsNow } from "@/server/health/scraper";
import { testHooksEnabled, testHooksOff } from "@/server/testing/hooks";

export const dynamic = "force-dynamic";

/**
 * Test hook (PORTCULLIS_TEST_HOOKS=1, local mode only; 404 otherwise): how far the request's
 * context's /metrics scraper has got, `{ generation, scrapedAt }`.
 */
export async function GET(request: Request): Promise<Response> {
  if (!testHooksEnabled()) return testHooksOff();
  return handle(async () =>
    respond(metricsProgressRoute, admissionMetricsProgress(contextOf(request))),
  );
}

/**
 * Test hook: reads the apiserver's /metrics for the request's context now, so the next health
 * report shows every call the apiserver had counted before this request; answers the progress.
 */
export async function POST(request: Request): Promise<Response> {
  if (!testHooksEnabled()) return testHooksOff();
  return handle(async () =>
    respond(
      scrapeMetricsNowRoute,
      await scrapeAdmissionMetricsNow(contextOf(request), await metricsClientFor(request)),
    ),
  );
}
