/**
 * Which parameter objects a policy binding's paramRef finds (the policy dispatcher's
 * `CollectParams`), decided from the param objects read with the snapshot. Pure.
 */
import type { V1LabelSelector } from "@/lib/k8s/types";
import type { Labels } from "@/lib/admission/model/selectors";
import {
  compileSelector,
  selectorMatches,
  type CompiledSelector,
} from "@/lib/admission/model/selectors";

/** The objects of one paramKind, as read from the cluster (names and labels are all that count). */
export interface ParamObjects {
  /** The policy's `paramKind.apiVersion` and `kind`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly objects: ReadonlyArray<{
    readonly namespace?: string;
    readonly name: string;
    readonly labels?: Labels;
  }>;
}

/** `apiVersion/kind`, the key a paramKind is looked up by. */
export function paramKindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/**
 * The error the apiserver configures a policy with when its paramKind is not served
 * (ensureParamsForPolicyLocked), the kind printed as a schema.GroupVersionKind is.
 */
export function paramKindNotServed(apiVersion: string, kind: string): string {
  // schema.ParseGroupVersion: no slash is a core version; "/" is empty.
  const slash = apiVersion.indexOf("/");
  const gv = apiVersion === "/" ? "/" : slash < 0 ? `/${apiVersion}` : apiVersion;
  return `failed to find resource referenced by paramKind: '${gv}, Kind=${kind}'`;
}

/** A binding's paramRef, compiled. */
export interface CompiledParamRef {
  readonly name?: string;
  readonly selector: CompiledSelector | undefined;
  readonly namespace?: string;
  readonly notFoundAction?: string;
}

/** Compiles a paramRef (a selector given as `{}` selects every object, as in the apiserver). */
export function compileParamRef(pr: {
  name?: string;
  namespace?: string;
  parameterNotFoundAction?: string;
  selector?: unknown;
}): CompiledParamRef {
  const sel = pr.selector;
  return {
    ...(pr.name !== undefined ? { name: pr.name } : {}),
    selector:
      sel !== undefined && sel !== null && typeof sel === "object"
        ? compileSelector(sel as V1LabelSelector)
        : undefined,
    ...(pr.namespace !== undefined ? { namespace: pr.namespace } : {}),
    ...(pr.parameterNotFoundAction !== undefined
      ? { notFoundAction: pr.parameterNotFoundAction }
      : {}),
  };
}

/** What a paramRef finds for one request. */
export type ParamLookup =
  /** The param objects of that kind were not read: nothing can be said. */
  | { readonly kind: "unknown" }
  /** A configuration error the apiserver reports (through failurePolicy). */
  | { readonly kind: "error"; readonly message: string }
  /** The objects found (`namespace/name` or `name`), possibly none. */
  | { readonly kind: "found"; readonly names: readonly string[]; readonly where: string };

/**
 * The params a binding evaluates with for a request in `requestNamespace` ("" when
 * cluster-scoped), from `params` (undefined when not read).
 */
export function lookupParams(
  ref: CompiledParamRef,
  params: ParamObjects | undefined,
  requestNamespace: string,
): ParamLookup {
  if (!params) return { kind: "unknown" };
  let namespace = "";
  if (params.namespaced) {
    namespace = ref.namespace ?? requestNamespace;
    if (namespace === "")
      return {
        kind: "error",
        message:
          "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
      };
  } else if (ref.namespace !== undefined && ref.namespace !== "") {
    return {
      kind: "error",
      message: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
    };
  }
  const names: string[] = [];
  for (const o of params.objects) {
    if (params.namespaced && (o.namespace ?? "") !== namespace) continue;
    const hit =
      ref.name !== undefined && ref.name !== ""
        ? o.name === ref.name
        : ref.selector !== undefined && selectorMatches(ref.selector, o.labels ?? {});
    if (hit) names.push(params.namespaced ? `${namespace}/${o.name}` : o.name);
  }
  const what = `${params.kind}${ref.name ? ` ${ref.name}` : ref.selector ? ` {${ref.selector.text}}` : ""}`;
  return {
    kind: "found",
    names,
    where: params.namespaced ? `${what} in namespace ${namespace}` : what,
  };
}
