/**
 * Every API route's contract, once: the test that holds app/api to them (routes.test.ts) reads
 * this list, so a route without a contract, or a contract without its route, fails it.
 */
import type { AnyRoute } from "./contract";
import { admissionManifestsRoute } from "./admission-manifests";
import {
  caseListRoute,
  caseRoute,
  deleteCaseRoute,
  replayRoute,
  saveCaseRoute,
} from "./admission-tests";
import { auditSinkRoute } from "./audit";
import {
  breakGlassListRoute,
  breakGlassPreviewRoute,
  breakGlassRevertRoute,
  breakGlassStartRoute,
  breakGlassStreamRoute,
} from "./break-glass";
import { listContextsRoute, rememberContextRoute } from "./contexts";
import {
  decisionDetailRoute,
  decisionListRoute,
  decisionStreamRoute,
  decisionTallyRoute,
} from "./decisions";
import { enginesRoute } from "./engines";
import {
  historyEffectsRoute,
  historyRecentRoute,
  historyTimelineRoute,
  historyVersionRoute,
} from "./history";
import { fleetStreamRoute } from "./fleet";
import { admissionHealthRoute } from "./health";
import { processHealthRoute } from "./health-process";
import { uninitializedRoute } from "./initializers";
import { notFoundRoutes } from "./not-found";
import { outsideApiRoute } from "./outside-api";
import { overviewRoute } from "./overview";
import { admissionConfigRoute } from "./admission-config";
import { policyParamsRoute, tryRequestRoute } from "./policies";
import { dryRunRoute, pickObjectRoute, predictStateRoute } from "./predict";
import { listCollectionRoute, watchRoute } from "./resources";
import {
  oidcCallbackRoute,
  sessionRoute,
  signInRoute,
  signOutRoute,
  startOidcRoute,
} from "./session";
import { auditFollowerRoute, metricsProgressRoute, scrapeMetricsNowRoute } from "./test-hooks";
import {
  backendPodsRoute,
  createConfigurationRoute,
  deleteConfigurationRoute,
  fightsRoute,
  kindSchemaRoute,
  lintStateRoute,
  readConfigurationRoute,
  renameConfigurationRoute,
  replaceConfigurationRoute,
  webhookAccessRoute,
  webhookDetailsRoute,
} from "./webhooks";

/** Every contract by the name it is exported as (the not-found catch-all's under notFoundRoutes). */
export const API_ROUTES: Readonly<Record<string, AnyRoute>> = {
  ...Object.fromEntries(
    Object.entries(notFoundRoutes).map(([method, r]) => [`notFoundRoutes.${method}`, r]),
  ),
  admissionHealthRoute,
  admissionManifestsRoute,
  caseListRoute,
  caseRoute,
  deleteCaseRoute,
  replayRoute,
  saveCaseRoute,
  auditFollowerRoute,
  metricsProgressRoute,
  scrapeMetricsNowRoute,
  auditSinkRoute,
  historyEffectsRoute,
  historyRecentRoute,
  historyTimelineRoute,
  historyVersionRoute,
  listContextsRoute,
  rememberContextRoute,
  decisionListRoute,
  decisionDetailRoute,
  decisionStreamRoute,
  decisionTallyRoute,
  enginesRoute,
  fleetStreamRoute,
  processHealthRoute,
  uninitializedRoute,
  overviewRoute,
  admissionConfigRoute,
  outsideApiRoute,
  policyParamsRoute,
  tryRequestRoute,
  dryRunRoute,
  pickObjectRoute,
  predictStateRoute,
  listCollectionRoute,
  sessionRoute,
  signInRoute,
  signOutRoute,
  startOidcRoute,
  oidcCallbackRoute,
  watchRoute,
  webhookDetailsRoute,
  renameConfigurationRoute,
  readConfigurationRoute,
  replaceConfigurationRoute,
  deleteConfigurationRoute,
  createConfigurationRoute,
  webhookAccessRoute,
  backendPodsRoute,
  lintStateRoute,
  fightsRoute,
  kindSchemaRoute,
  breakGlassListRoute,
  breakGlassPreviewRoute,
  breakGlassStartRoute,
  breakGlassRevertRoute,
  breakGlassStreamRoute,
};
