/**
 * The cluster state lint and predict work from. Files give configurations; --context gives the
 * cluster: its configurations when no files are named, and always its namespaces and discovery.
 */
import {
  NEWEST_KUBERNETES_MINOR,
  type AssumedMinor,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { ParamObjects } from "@/lib/admission/model/params";
import type { RequestUserInfo } from "@/lib/admission/model/request";
import type { Labels } from "@/lib/admission/model/selectors";
import type { JsonObject } from "@/lib/admission/validate/json";
import { InputError } from "./errors";
import { readDocuments } from "./documents";
import { readInputs, type SourceText } from "./input";
import type { Live } from "./live";
import type { Collected, Notice } from "./snapshot";
import { addConfiguration, collect, emptyBackends } from "./snapshot";
import { configurationsOf, emptyLists } from "@/lib/admission/model/snapshot";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import type { ManifestOrigin } from "@/lib/admission/model/manifests";
import {
  manifestObjectsOf,
  parseManifestDirEntry,
  readManifestDir,
} from "@/server/kube/admission-manifests";

/** Everything read, before compiling. */
export interface State {
  collected: Collected;
  /** Namespace labels from files (config Namespace objects, --namespaces) and the cluster. */
  namespaces: Record<string, Labels>;
  /** True when namespaces were read from somewhere (else lint/predict assume defaults). */
  namespacesKnown: boolean;
  /** The namespaces among them whose phase is Terminating. */
  terminatingNamespaces: string[];
  discovery: DiscoveryResource[];
  /** The param objects policies name (live only; offline they are unknown). */
  params: readonly ParamObjects[] | undefined;
  /** The paramKinds policies name that the cluster does not serve (live only). */
  unservedParamKinds: readonly string[] | undefined;
  /** The context's identity (live only). */
  identity: RequestUserInfo | undefined;
  live: Live | undefined;
  /**
   * The static objects among `collected.lists` (read from --admission-manifests), by
   * `manifestOriginKey`: pass as the snapshot's `manifestOrigins`. Undefined: none.
   */
  manifestOrigins: Readonly<Record<string, ManifestOrigin>> | undefined;
  /**
   * The minor reproduced: --kubernetes-version, else the cluster's /version (--context), else
   * the newest, assumed.
   */
  kubernetes: AssumedMinor;
}

/**
 * Reads --admission-manifests: each directory judged as the apiserver judges it, the first one
 * that does not load refused with the apiserver's message (it would not start on it).
 */
function readStaticManifests(dirs: readonly string[]) {
  const states = dirs.map((d) => readManifestDir(parseManifestDirEntry(d)));
  const broken = states.find((s) => s.error !== undefined);
  if (broken) throw new InputError(`--admission-manifests ${broken.dir}: ${broken.error ?? ""}`);
  return manifestObjectsOf(states);
}

/**
 * Reads manifests for configurations or namespaces. A YAML error here is unreadable input
 * (exit 2): lint and predict need every document; `validate` is the command that reports them.
 */
async function readManifests(
  inputs: readonly string[],
  extra: readonly SourceText[] = [],
): Promise<Collected> {
  const read = readDocuments([...(await readInputs(inputs)), ...extra]);
  const p = read.problems[0];
  if (p)
    throw new InputError(
      `${p.origin.source}:${p.range.startLine}:${p.range.startCol}: malformed YAML: ${p.message}`,
    );
  return collect(read.objects);
}

/** Loads the state for lint and predict. */
export async function loadState(opts: {
  inputs: readonly string[];
  namespacesFile: string | undefined;
  context: string | undefined;
  kubeconfig: string | undefined;
  admissionManifests?: readonly string[];
  /** Configuration given as text besides the files (a test suite's own objects). */
  extraSources?: readonly SourceText[];
  /** --kubernetes-version. */
  kubernetesVersion?: KubernetesMinor;
}): Promise<State> {
  const extra = opts.extraSources ?? [];
  const collected =
    opts.inputs.length > 0 || extra.length > 0
      ? await readManifests(opts.inputs, extra)
      : undefined;
  const namespaces: Record<string, Labels> = {};
  // By name; a later source's Namespace object replaces an earlier one's, phase and all.
  const terminating = new Set<string>();
  const addNamespaces = (
    labels: Readonly<Record<string, Labels>>,
    terminatingNames: readonly string[],
  ) => {
    Object.assign(namespaces, labels);
    for (const name of Object.keys(labels)) terminating.delete(name);
    for (const name of terminatingNames) terminating.add(name);
  };
  let namespacesKnown = false;
  const notices: Notice[] = collected?.notices ?? [];
  let discovery = builtinDiscovery();
  let live: Live | undefined;
  let params: readonly ParamObjects[] | undefined;
  let unservedParamKinds: readonly string[] | undefined;
  let identity: RequestUserInfo | undefined;
  let kubernetes: AssumedMinor = opts.kubernetesVersion
    ? { minor: opts.kubernetesVersion, source: "flag" }
    : { minor: NEWEST_KUBERNETES_MINOR, source: "default" };
  let result: Collected = collected ?? {
    lists: emptyLists(),
    namespaces: {},
    terminatingNamespaces: [],
    backends: emptyBackends(),
    configurations: 0,
    engineObjects: [],
    notices,
  };
  if (opts.context !== undefined) {
    const m = await import("./live");
    live = m.connect(opts.context, opts.kubeconfig);
    const state = await m.readLiveState(live, notices, {
      configurations: !collected,
      policies: collected?.lists,
    });
    if (!collected) {
      for (const o of configurationsOf(state.snapshot)) {
        addConfiguration(result.lists, o as JsonObject);
        result.configurations++;
      }
      // The historical webhook kinds are predicted apart
      // (lib/admission/historical/legacy-hooks.ts): the legacy group's v1beta1 configurations are
      // not the cluster's own hooks.
      const snap = state.snapshot;
      result.lists.legacyMutatingWebhookConfigurations.push(
        ...(snap.legacyMutatingWebhookConfigurations ?? []),
      );
      result.lists.legacyValidatingWebhookConfigurations.push(
        ...(snap.legacyValidatingWebhookConfigurations ?? []),
      );
      result.lists.externalAdmissionHookConfigurations.push(
        ...(snap.externalAdmissionHookConfigurations ?? []),
      );
      // The engines' own policies, when the cluster runs any (lint L20–L24, predict's owners).
      result.engineObjects.push(
        ...(await m.readEngineObjects(live, state.snapshot.discovery ?? [], notices)),
      );
      result = { ...result, notices };
    }
    addNamespaces(state.snapshot.namespaces ?? {}, state.snapshot.terminatingNamespaces ?? []);
    namespacesKnown = true;
    discovery = [...(state.snapshot.discovery ?? [])];
    params = state.snapshot.params;
    unservedParamKinds = state.snapshot.unservedParamKinds;
    identity = state.identity;
    if (!opts.kubernetesVersion && state.snapshot.kubernetes)
      kubernetes = state.snapshot.kubernetes;
  }
  if (opts.namespacesFile !== undefined) {
    const ns = await readManifests([opts.namespacesFile]);
    if (Object.keys(ns.namespaces).length === 0)
      throw new InputError(`${opts.namespacesFile} holds no v1 Namespace objects`);
    for (const n of ns.notices)
      notices.push({
        at: n.at,
        message: n.message.replace("is not an admission configuration", "is not a Namespace"),
      });
    addNamespaces(ns.namespaces, ns.terminatingNamespaces);
    namespacesKnown = true;
  }
  if (collected && Object.keys(collected.namespaces).length > 0) {
    addNamespaces(collected.namespaces, collected.terminatingNamespaces);
    namespacesKnown = true;
  }
  let manifestOrigins: State["manifestOrigins"];
  if (opts.admissionManifests && opts.admissionManifests.length > 0) {
    const m = readStaticManifests(opts.admissionManifests);
    const { origins, ...lists } = m;
    for (const [key, objects] of Object.entries(lists))
      (result.lists[key as keyof typeof lists] as unknown[]).push(...objects);
    result.configurations += Object.keys(origins).length;
    manifestOrigins = origins;
  }
  if (result.configurations === 0 && collected)
    notices.push({
      at: opts.inputs.join(", "),
      message: "no admission configurations found",
    });
  return {
    collected: result,
    namespaces,
    namespacesKnown,
    terminatingNamespaces: [...terminating],
    discovery,
    params,
    unservedParamKinds,
    identity,
    live,
    manifestOrigins,
    kubernetes,
  };
}
