/**
 * A test case from a prediction: "save as test" on the predict page (and on a decision, once its
 * request is rebuilt). The request's parts and what the prediction found become the case's
 * expectations — the calls in order, every skip with its reason, the hooks offline cannot decide
 * — so the case fails when an edit changes any of them. Pure.
 */
import type { PredictReport, RequestReport } from "@/lib/admission/report/predict-report";
import type { JsonObject } from "@/lib/admission/model/request";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import type { Prediction } from "@/lib/admission/prediction/predict";
import { formatHookRef, type CaseSource, type TestCase, type TestExpect } from "./format";

/** A hook as a test file names it: `<Source>/<configuration>/<name>`. */
const ref = (h: { source: string; configuration: string; name: string }): string =>
  formatHookRef({
    source: h.source as HookIdentity["source"],
    configuration: h.configuration,
    name: h.name,
  });

/**
 * The expectations of a prediction itself (the predict page's, a decision's request predicted
 * again): the certain calls in order, the skips with the predictor's code and sentence (`why`:
 * the Explainer's), and, when admission refuses the request before a webhook answers, that it
 * is not admitted. The report's form is expectationsFromReport.
 */
export function expectationsFromPrediction(
  p: Prediction,
  why: (skip: Prediction["skips"][number]) => string,
): TestExpect {
  const refused = p.rejectedBeforeHooks ?? p.failure;
  const undecided = p.indeterminate.map((x) => ref(x.hook));
  return {
    ...(refused ? { admitted: false } : {}),
    calls: p.calls.filter((c) => c.round === 0).map((c) => ref(c.hook)),
    ...(undecided.length > 0 ? { undecided } : {}),
    skipped: p.skips.map((s) => ({ hook: ref(s.hook), reason: s.reason.code, message: why(s) })),
  };
}

/**
 * The expectations a prediction makes true: its certain calls in order, its skips and undecided
 * hooks. @public
 */
export function expectationsFromReport(report: PredictReport): TestExpect {
  const calls = report.calls
    .filter((c) => c.round === 0 && c.certainty === "certain")
    .map((c) => ref(c.hook));
  const expect: TestExpect = {
    ...(report.indeterminate.length === 0 ? { calls } : { called: calls }),
    ...(report.skips.length > 0
      ? { skipped: report.skips.map((s) => ({ hook: ref(s.hook), reason: s.code })) }
      : {}),
    ...(report.indeterminate.length > 0
      ? { undecided: report.indeterminate.map((x) => ref(x.hook)) }
      : {}),
    // A refusal before any webhook answers is decided offline; admission otherwise waits on them.
    ...(!report.admitted ? { admitted: false } : {}),
  };
  return expect;
}

/** The request of a case, from the report's request and the objects it was made from. @public */
export function requestFromReport(
  r: RequestReport,
  objects: { object: JsonObject | null; oldObject: JsonObject | null },
): TestCase["request"] {
  return {
    operation: r.operation,
    resource: `${r.group || "core"}/${r.version}/${r.resource}`,
    ...(r.subresource ? { subresource: r.subresource } : {}),
    kind: r.kind,
    ...(r.name ? { name: r.name } : {}),
    ...(r.namespace ? { namespace: r.namespace } : {}),
    ...(objects.object ? { object: objects.object } : {}),
    ...(objects.oldObject ? { oldObject: objects.oldObject } : {}),
    userInfo: { username: r.userInfo.username, groups: r.userInfo.groups },
    ...(r.dryRun ? { dryRun: true } : {}),
    ...(r.namespaceLabels && r.namespaceLabelsFrom !== "object"
      ? { namespaceLabels: r.namespaceLabels }
      : {}),
  };
}

/** A whole case from a predict report. */
export function caseFromReport(
  name: string,
  report: PredictReport,
  objects: { object: JsonObject | null; oldObject: JsonObject | null },
  source?: CaseSource,
): TestCase {
  return {
    name,
    ...(source ? { source } : {}),
    request: requestFromReport(report.request, objects),
    expect: expectationsFromReport(report),
  };
}
