/**
 * From the predict page's state and the cluster's admission state to a prediction report, in the
 * browser: the YAML parsed with positions (an error points at its line and column), the request
 * built and predicted by lib/admission exactly as the command line does. Pure.
 */
import type { CompiledSnapshot } from "@/lib/admission/matching/compile";
import type { EngineOwnershipIndex } from "@/lib/admission/engines/ownership";
import { predict } from "@/lib/admission/prediction/predict";
import { predictLegacy, type CompiledLegacy } from "@/lib/admission/historical/legacy-hooks";
import {
  buildRequest,
  minorNotices,
  reportOf,
  type PredictReport,
  type RequestSpec,
} from "@/lib/admission/report/predict-report";
import type { AdmissionRequest, RequestUserInfo } from "@/lib/admission/model/request";
import type { ResolvedResource } from "@/lib/admission/report/resources";
import type { Labels } from "@/lib/admission/model/selectors";
import type { AdmissionSnapshot, DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";
import { isObject, type JsonObject } from "@/lib/admission/validate/json";
import { parseDocuments } from "@/lib/admission/validate/source-map";
import type { PredictPageState } from "./page-state";

/** A problem with the page's input, at a position in its text when it has one. */
export interface InputProblem {
  field: "object" | "oldObject" | "request";
  message: string;
  line?: number;
  column?: number;
}

/** What the prediction is made from, besides the page's state. */
export interface LiveInputs {
  compiled: CompiledSnapshot;
  discovery: readonly DiscoveryResource[];
  namespaces: Readonly<Record<string, Labels>>;
  identity: RequestUserInfo | undefined;
  /** The historical hooks, compiled apart (lib/admission/historical/legacy-hooks.ts). */
  legacy?: CompiledLegacy;
  /** The policy engines' ownership: calls and failures name the engine policy behind them. */
  ownership?: EngineOwnershipIndex;
}

/** The page's answer: the report, or why there is none. */
export type PagePrediction =
  | {
      ok: true;
      report: PredictReport;
      request: AdmissionRequest;
      resolved: ResolvedResource;
    }
  | { ok: false; problems: InputProblem[] };

/** Parses exactly one object from YAML or JSON text. */
function parseObject(
  text: string,
  field: InputProblem["field"],
): { object: JsonObject } | { problem: InputProblem } {
  const docs = parseDocuments(text).filter((d) => d.value !== null || d.problems.length > 0);
  for (const d of docs) {
    const p = d.problems[0];
    if (p)
      return {
        problem: { field, message: p.message, line: p.range.startLine, column: p.range.startCol },
      };
  }
  const first = docs[0];
  if (!first || !isObject(first.value))
    return { problem: { field, message: "no object: paste one Kubernetes object" } };
  if (docs.length > 1)
    return {
      problem: {
        field,
        message: `${docs.length} documents: give exactly one object`,
        line: docs[1]?.docRange.startLine,
        column: 1,
      },
    };
  return { object: first.value };
}

/** The request spec the page's fields describe. */
function requestSpec(s: PredictPageState): RequestSpec {
  return {
    operation: s.operation,
    subresource: s.subresource.trim(),
    resource: s.resource.trim() || undefined,
    namespace: s.namespace.trim() || undefined,
    name: s.name.trim() || undefined,
    dryRun: s.dryRun,
    namespaceLabels: s.namespaceLabels,
    user: s.user.trim() || undefined,
    groups: s.groups,
  };
}

/**
 * The admission request the page's state describes, for its object already parsed (throws a
 * RequestSpecError when the fields do not make a request).
 */
export function pageRequest(
  s: PredictPageState,
  object: JsonObject,
  oldObject: JsonObject | undefined,
  live: LiveInputs,
): ReturnType<typeof buildRequest> {
  return buildRequest(requestSpec(s), {
    object,
    oldObject,
    discovery: live.discovery,
    namespaces: live.namespaces,
    namespacesFrom: "cluster",
    identity: live.identity,
  });
}

/**
 * The live snapshot as the page predicts it: for the minor the admin picked (`chosen`), else the
 * cluster's own (its /version, read with the state).
 */
export function snapshotForMinor(
  snapshot: AdmissionSnapshot,
  chosen: KubernetesMinor | undefined,
): AdmissionSnapshot {
  return chosen ? { ...snapshot, kubernetes: { minor: chosen, source: "flag" } } : snapshot;
}

/** Predicts what the page's state describes against the live state. */
export function predictPage(s: PredictPageState, live: LiveInputs): PagePrediction {
  const parsed = parseObject(s.object, "object");
  if ("problem" in parsed) return { ok: false, problems: [parsed.problem] };
  let oldObject: JsonObject | undefined;
  if (s.operation === "UPDATE" && s.oldObject.trim() !== "") {
    const old = parseObject(s.oldObject, "oldObject");
    if ("problem" in old) return { ok: false, problems: [old.problem] };
    oldObject = old.object;
  }
  let built: ReturnType<typeof buildRequest>;
  try {
    built = pageRequest(s, parsed.object, oldObject, live);
  } catch (e) {
    return {
      ok: false,
      problems: [{ field: "request", message: e instanceof Error ? e.message : String(e) }],
    };
  }
  return {
    ok: true,
    report: reportOf(
      predict(built.request, live.compiled),
      built.report,
      [...built.notices, ...minorNotices(live.compiled)],
      live.legacy ? predictLegacy(built.request, live.legacy) : [],
      live.ownership,
      live.compiled.kubernetes,
    ),
    request: built.request,
    resolved: built.resolved,
  };
}
