/**
 * `portcullis predict`: the calls the apiserver makes for one request — mutating rounds included —
 * every skipped hook with its reason, and the worst-case latency admission adds. The request and
 * the report are lib/admission/report/predict-report's, shared with the predict page.
 */
import { recogniseOwnership } from "@/lib/admission/engines/ownership";
import { parseEngineObjects } from "@/lib/admission/engines/sources";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { PodSecurityConfig } from "@/lib/admission/model/admission-configuration";
import { readAdmissionConfig } from "@/server/kube/admission-config";
import type { JsonObject } from "@/lib/admission/validate/json";
import { isObject } from "@/lib/admission/validate/json";
import {
  buildRequest,
  predictReport,
  type PredictReport,
} from "@/lib/admission/report/predict-report";
import type { PredictCommand } from "../args";
import { InputError } from "../errors";
import { readDocuments } from "../documents";
import { readStdin, readText, type SourceText } from "../input";
import { loadState } from "../state";

/** Reads the one object in a file, or (`-`) on stdin: `kubectl get … -o yaml | portcullis predict --object -`. */
export async function readObject(
  file: string,
  flag: string,
  stdin: () => Promise<SourceText> = () => readStdin(),
): Promise<JsonObject> {
  const source = file === "-" ? await stdin() : readText(file);
  const name = source.name;
  const read = readDocuments([source]);
  const p = read.problems[0];
  if (p)
    throw new InputError(
      `${name}:${p.range.startLine}:${p.range.startCol}: malformed YAML: ${p.message}`,
    );
  const objects = read.objects.filter((o) => o.value !== null);
  const first = objects[0];
  if (!first || !isObject(first.value)) throw new InputError(`${flag} ${name} holds no object`);
  if (objects.length > 1)
    throw new InputError(`${flag} ${name} holds ${objects.length} objects; give it exactly one`);
  return first.value;
}

/** The PodSecurity plugin's configuration from the AdmissionConfiguration file (exit 2 when unreadable). */
function podSecurityOf(file: string): PodSecurityConfig {
  try {
    return readAdmissionConfig(file).podSecurity;
  } catch (e) {
    throw new InputError(`--admission-config: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Runs the command. */
export async function runPredict(cmd: PredictCommand): Promise<PredictReport> {
  // Standard input can be read once.
  const fromStdin = [cmd.object, cmd.oldObject, ...cmd.config].filter((f) => f === "-").length;
  if (fromStdin > 1)
    throw new InputError(
      "only one of --object, --old-object and --config can be - (standard input is read once)",
    );
  const object = await readObject(cmd.object, "--object");
  const oldObject =
    cmd.oldObject === undefined ? undefined : await readObject(cmd.oldObject, "--old-object");
  const state = await loadState({
    inputs: cmd.config,
    namespacesFile: cmd.namespaces,
    context: cmd.context,
    kubeconfig: cmd.kubeconfig,
    admissionManifests: cmd.admissionManifests,
    kubernetesVersion: cmd.kubernetesVersion,
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
    ...(state.terminatingNamespaces.length > 0
      ? { terminatingNamespaces: state.terminatingNamespaces }
      : {}),
    discovery: state.discovery,
    ...(state.params ? { params: state.params } : {}),
    ...(state.unservedParamKinds ? { unservedParamKinds: state.unservedParamKinds } : {}),
    ...(cmd.admissionConfig !== undefined
      ? { podSecurity: podSecurityOf(cmd.admissionConfig) }
      : {}),
    ...(state.manifestOrigins ? { manifestOrigins: state.manifestOrigins } : {}),
    kubernetes: state.kubernetes,
  };
  // The engines behind the hooks, from the objects themselves and any engine policies given.
  const ownership = recogniseOwnership(snapshot, parseEngineObjects(state.collected.engineObjects));
  return predictReport(
    built.request,
    built.report,
    snapshot,
    [...state.collected.notices, ...built.notices],
    ownership,
  );
}
