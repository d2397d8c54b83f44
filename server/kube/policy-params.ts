import "server-only";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import type { V1APIResource, V1LabelSelector } from "@/lib/k8s/types";
import { groupVersionPath, resourceForKind, type KindCache } from "./resolve-kind";
import { selectorText } from "@/lib/webhooks/selector-text";
import {
  MAX_PARAM_OBJECTS,
  type ParamsReport,
  type ParamsStatus,
} from "@/lib/policies/params-model";

interface PolicyLike {
  metadata?: { name?: string };
  spec?: { paramKind?: { apiVersion?: string; kind?: string } };
}

interface BindingLike {
  metadata?: { name?: string };
  spec?: {
    policyName?: string;
    paramRef?: {
      name?: string;
      namespace?: string;
      selector?: V1LabelSelector;
      parameterNotFoundAction?: string;
    };
  };
}

interface NamedList<T> {
  items?: T[];
}

/** The binding kinds and the policy kind each binds. */
const PAIRS = [
  { binding: "validatingadmissionpolicybindings", policy: "validatingadmissionpolicies" },
  { binding: "mutatingadmissionpolicybindings", policy: "mutatingadmissionpolicies" },
] as const;

/** At most this many bindings are resolved per report (each may cost a discovery and a read). */
const MAX_BINDINGS = 200;

async function listOrEmpty<T>(client: KubeClient, path: string, signal?: AbortSignal) {
  try {
    return (await client.request<NamedList<T>>({ path, signal })).items ?? [];
  } catch (e) {
    // A kind the cluster does not serve has no objects.
    if (e instanceof KubeApiError && e.status === 404) return [];
    throw e;
  }
}

/** What one binding's paramRef resolves to, as the binding's reader sees it. */
async function bindingParams(
  client: KubeClient,
  binding: BindingLike,
  policy: PolicyLike | undefined,
  cache: KindCache,
  signal?: AbortSignal,
): Promise<ParamsStatus> {
  const ref = binding.spec?.paramRef;
  const action = ref ? (ref.parameterNotFoundAction ?? "Deny") : undefined;
  const base = { objects: [], total: 0, parameterNotFoundAction: action };
  if (!policy)
    return {
      ...base,
      state: "policy-missing",
      message: `policy ${binding.spec?.policyName ?? ""} does not exist: this binding does nothing`,
    };
  const pk = policy.spec?.paramKind;
  if (!pk?.kind || !pk.apiVersion)
    return {
      ...base,
      state: "not-needed",
      message: ref
        ? "the policy has no paramKind: this paramRef is ignored"
        : "the policy takes no parameters",
    };
  const paramKind = { apiVersion: pk.apiVersion, kind: pk.kind };
  if (!ref)
    return {
      ...base,
      paramKind,
      state: "no-param-ref",
      message: `the policy needs ${pk.kind} parameters but the binding has no paramRef: every matching request is a configuration error (the policy's failurePolicy decides)`,
    };
  let res: V1APIResource | undefined;
  try {
    res = await resourceForKind(client, pk.apiVersion, pk.kind, cache, signal);
  } catch (e) {
    return { ...base, paramKind, state: "error", message: (e as Error).message };
  }
  if (!res)
    return {
      ...base,
      paramKind,
      state: "kind-not-served",
      message: `the cluster does not serve ${pk.kind} in ${pk.apiVersion}: every matching request is a configuration error`,
    };
  const where = { paramKind, resource: res.name, namespaced: res.namespaced };
  if (res.namespaced && !ref.namespace)
    return {
      ...base,
      ...where,
      state: "per-request",
      message: `parameters are read from each request's own namespace (${pk.kind} ${ref.name ?? selectorText(ref.selector) ?? ""}); when absent there, ${action} applies`,
    };
  const coll =
    `${groupVersionPath(pk.apiVersion)}` +
    (res.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace ?? "")}` : "") +
    `/${res.name}`;
  try {
    let found: Array<{ namespace?: string; name: string }>;
    if (ref.name) {
      try {
        await client.request({ path: `${coll}/${encodeURIComponent(ref.name)}`, signal });
        found = [{ namespace: ref.namespace, name: ref.name }];
      } catch (e) {
        if (e instanceof KubeApiError && e.status === 404) found = [];
        else throw e;
      }
    } else {
      const list = await client.request<
        NamedList<{ metadata?: { name?: string; namespace?: string } }>
      >({ path: coll, query: { labelSelector: selectorText(ref.selector) || undefined }, signal });
      found = (list.items ?? []).map((o) => ({
        namespace: o.metadata?.namespace,
        name: o.metadata?.name ?? "",
      }));
    }
    const what = ref.name
      ? `${pk.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`
      : `${pk.kind} objects matching {${selectorText(ref.selector) || "everything"}}`;
    if (found.length === 0)
      return {
        ...base,
        ...where,
        state: "missing",
        message: `${what}: not found. parameterNotFoundAction ${action}: ${
          action === "Allow"
            ? "matching requests are admitted without this policy's checks"
            : "every matching request is denied"
        }`,
      };
    return {
      ...base,
      ...where,
      objects: found.slice(0, MAX_PARAM_OBJECTS),
      total: found.length,
      state: "found",
      message: `${what}: ${found.length} found`,
    };
  } catch (e) {
    return { ...base, ...where, state: "error", message: (e as Error).message };
  }
}

/**
 * The parameters every policy binding resolves to, read as the request's identity: the objects
 * it names (or selects), or why there are none — so a page can flag a binding whose params are
 * missing before a request finds out.
 */
export async function policyParamsReport(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<ParamsReport> {
  const cache: KindCache = new Map();
  const out: ParamsReport = { bindings: {} };
  let budget = MAX_BINDINGS;
  for (const pair of PAIRS) {
    const [bindings, policies] = await Promise.all([
      listOrEmpty<BindingLike>(client, `/apis/${ADMISSION_GROUP}/v1/${pair.binding}`, signal),
      listOrEmpty<PolicyLike>(client, `/apis/${ADMISSION_GROUP}/v1/${pair.policy}`, signal),
    ]);
    const byName = new Map(policies.map((p) => [p.metadata?.name ?? "", p]));
    const taken = bindings.slice(0, Math.max(0, budget));
    budget -= taken.length;
    const statuses = await Promise.all(
      taken.map((b) =>
        bindingParams(client, b, byName.get(b.spec?.policyName ?? ""), cache, signal),
      ),
    );
    taken.forEach((b, i) => {
      out.bindings[`${pair.binding}/${b.metadata?.name ?? ""}`] = statuses[i]!;
    });
  }
  return out;
}
