/**
 * `portcullis predict`: the calls the apiserver makes for one request — mutating rounds included —
 * every skipped hook with its reason, and the worst-case latency admission adds. The request and
 * the report are lib/admission/predict-report's, shared with the predict page.
 */
import type { AdmissionSnapshot } from "@/lib/admission/snapshot";
import type { JsonObject } from "@/lib/admission/validate/json";
import { isObject } from "@/lib/admission/validate/json";
import { buildRequest, predictReport, type PredictReport } from "@/lib/admission/predict-report";
import type { PredictCommand } from "../args";
import { InputError } from "../errors";
import { readDocuments } from "../documents";
import { readText } from "../input";
import { loadState } from "../state";

/** Reads the one object in a file. */
export function readObject(file: string, flag: string): JsonObject {
  const read = readDocuments([readText(file)]);
  const p = read.problems[0];
  if (p)
    throw new InputError(
      `${file}:${p.range.startLine}:${p.range.startCol}: malformed YAML: ${p.message}`,
    );
  const objects = read.objects.filter((o) => o.value !== null);
  const first = objects[0];
  if (!first || !isObject(first.value)) throw new InputError(`${flag} ${file} holds no object`);
  if (objects.length > 1)
    throw new InputError(`${flag} ${file} holds ${objects.length} objects; give it exactly one`);
  return first.value;
}

/** Runs the command. */
export async function runPredict(cmd: PredictCommand): Promise<PredictReport> {
  const object = readObject(cmd.object, "--object");
  const oldObject =
    cmd.oldObject === undefined ? undefined : readObject(cmd.oldObject, "--old-object");
  const state = await loadState({
    inputs: cmd.config,
    namespacesFile: cmd.namespaces,
    context: cmd.context,
    kubeconfig: cmd.kubeconfig,
  });
  const identity = cmd.user === undefined ? state.identity : undefined;
  const built = buildRequest(cmd, {
    object,
    oldObject,
    discovery: state.discovery,
    namespaces: state.namespaces,
    namespacesFrom: state.live ? "cluster" : state.namespacesKnown ? "files" : undefined,
    identity,
  });
  const snapshot: AdmissionSnapshot = {
    ...state.collected.lists,
    namespaces: state.namespaces,
    discovery: state.discovery,
    ...(state.params ? { params: state.params } : {}),
    ...(state.unservedParamKinds ? { unservedParamKinds: state.unservedParamKinds } : {}),
  };
  return predictReport(built.request, built.report, snapshot, [
    ...state.collected.notices,
    ...built.notices,
  ]);
}
