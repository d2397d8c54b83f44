/** What a binding's parameters resolve to: one contract for the params route and the pages. Pure. */

type ParamsState =
  /** The policy has no paramKind: the binding needs no parameters. */
  | "not-needed"
  /** paramRef resolved to at least one object. */
  | "found"
  /** paramRef resolves to nothing now: parameterNotFoundAction decides (Deny / Allow). */
  | "missing"
  /** Namespaced params without paramRef.namespace: read from each request's namespace. */
  | "per-request"
  /** The policy has paramKind but the binding has no paramRef: a configuration error. */
  | "no-param-ref"
  /** paramKind names a kind the cluster does not serve: every matching request is a configuration error. */
  | "kind-not-served"
  /** The binding's policy does not exist: the binding does nothing. */
  | "policy-missing"
  /** The parameters could not be read (e.g. forbidden). */
  | "error";

export interface ParamsStatus {
  state: ParamsState;
  /** The paramKind as the policy gives it. */
  paramKind?: { apiVersion: string; kind: string };
  /** The collection paramKind resolves to, when served. */
  resource?: string;
  namespaced?: boolean;
  /** The objects found (at most {@link MAX_PARAM_OBJECTS}). */
  objects: Array<{ namespace?: string; name: string }>;
  /** How many objects matched in all. */
  total: number;
  parameterNotFoundAction?: string;
  /** One sentence an admin can act on. */
  message: string;
}

/** By binding: `<resource>/<name>`. */
export interface ParamsReport {
  bindings: Record<string, ParamsStatus>;
}

export const MAX_PARAM_OBJECTS = 20;

/** True when the state deserves a warning on the pages. */
export function paramsWarn(s: ParamsStatus | undefined): boolean {
  return (
    s !== undefined &&
    (s.state === "missing" ||
      s.state === "no-param-ref" ||
      s.state === "kind-not-served" ||
      s.state === "policy-missing" ||
      s.state === "error")
  );
}
