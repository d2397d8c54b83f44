/**
 * Which admission operations a resource (or subresource) can be the target of, read from the
 * verbs discovery lists for it, and what the apiserver does with a request it cannot be: no hook
 * is ever consulted. Pure.
 *
 * The apiserver registers a route for a method only when the resource's storage implements it,
 * and discovery lists the verb for every registered route (`endpoints/installer.go`,
 * `toDiscoveryKubeVerb`): POST `create`, PUT `update`, PATCH `patch`, DELETE `delete` (and
 * `deletecollection` on the collection). The router refuses a method no route serves before any
 * admission plugin runs: with 405 MethodNotAllowed when other methods are served at that path,
 * with 404 NotFound when none is (a resource that serves only `create`, such as tokenreviews, has
 * no path for a name).
 * Connect subresources (`pods/exec`, `pods/attach`, `pods/portforward`, `pods/proxy`,
 * `nodes/proxy`, `services/proxy`) are admitted as CONNECT whatever the method; nothing else ever
 * is. Discovery does not say which subresources connect; the apiserver names their kind after
 * their options (`PodExecOptions`, `NodeProxyOptions`, …), and that is the sign read here.
 */
import type { AdmissionRequest } from "@/lib/admission/model/request";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { Exclusion, InTreeRejection } from "@/lib/admission/matching/exclusions";

/** What discovery lists for a resource or subresource (`""`): its verbs, and whether it connects. */
function targetOf(
  info: DiscoveryResource | undefined,
  subresource: string,
): { verbs: readonly string[]; connects: boolean } | undefined {
  if (!info) return undefined;
  if (!subresource) return info.verbs ? { verbs: info.verbs, connects: false } : undefined;
  const sub = info.subresources?.find((s) => s.name === subresource);
  if (!sub?.verbs) return undefined;
  return { verbs: sub.verbs, connects: isConnectKind(sub.kind?.kind ?? "") };
}

/**
 * A subresource the resource does not serve: no route exists for its path (`installer.go`
 * registers one per served subresource), so the router answers 404 to every method. Known only
 * when discovery was read from the cluster (verbs and subresources both listed): a table of
 * built-in resources names some subresources, not all.
 */
function unservedSubresource(info: DiscoveryResource, subresource: string): boolean {
  if (subresource === "" || info.verbs === undefined || info.subresources === undefined)
    return false;
  return !info.subresources.some((s) => s.name === subresource);
}

/** Whether discovery's kind for a subresource names a connect subresource (see above). */
export function isConnectKind(kind: string): boolean {
  return kind.endsWith("Options");
}

/** The verbs whose routes carry a request of this operation (a CONNECT has none of its own). */
const VERBS: Record<Exclude<AdmissionRequest["operation"], "CONNECT">, readonly string[]> = {
  CREATE: ["create"],
  UPDATE: ["update", "patch"],
  DELETE: ["delete", "deletecollection"],
};

/** The HTTP methods of those verbs, for messages. */
const METHODS: Record<Exclude<AdmissionRequest["operation"], "CONNECT">, string> = {
  CREATE: "POST",
  UPDATE: "PUT or PATCH",
  DELETE: "DELETE",
};

/** What the router answers for a method no route serves at a path others are served at. */
export const METHOD_NOT_ALLOWED = {
  status: 405,
  message: "the server does not allow this method on the requested resource",
} as const;

/** What the router answers for a path no route serves at all. */
export const PATH_NOT_FOUND = {
  status: 404,
  message: "the server could not find the requested resource",
} as const;

/** The verbs served at a resource's collection path, and at a name's path (`installer.go`). */
const COLLECTION_VERBS = ["list", "create", "deletecollection"];
const ITEM_VERBS = ["get", "update", "patch", "delete"];

/**
 * The router's answer to a request whose verbs the target does not serve: the request's path
 * (the collection for a CREATE of the resource itself, else a name's, or a name's subresource)
 * is served for other methods, or not at all.
 */
function routerAnswer(
  verbs: readonly string[],
  operation: Exclude<AdmissionRequest["operation"], "CONNECT">,
  subresource: string,
): typeof METHOD_NOT_ALLOWED | typeof PATH_NOT_FOUND {
  const atPath = subresource
    ? verbs
    : verbs.filter((v) => (operation === "CREATE" ? COLLECTION_VERBS : ITEM_VERBS).includes(v));
  return atPath.length > 0 ? METHOD_NOT_ALLOWED : PATH_NOT_FOUND;
}

/** Why no hook is consulted for this request, and the answer its sender gets, if any. */
export interface UnservedOperation {
  /** The router's refusal; none when the request could be sent but is admitted as another operation. */
  readonly rejection: InTreeRejection | undefined;
  readonly exclusion: Exclusion;
}

/**
 * Whether discovery says the request's operation never reaches admission on its target: a
 * CREATE, UPDATE or DELETE whose verbs the target does not serve (refused by the router), an operation
 * other than CONNECT on a connect subresource, or a CONNECT on anything else (both admitted as the
 * other, so never as this one). Undefined when discovery does not list the target's verbs.
 */
export function unservedOperation(
  r: AdmissionRequest,
  info: DiscoveryResource | undefined,
): UnservedOperation | undefined {
  const name = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  if (info && unservedSubresource(info, r.subresource)) {
    const served = info.subresources?.map((s) => s.name).join(", ") || "none";
    const answer = info.custom ? crdNotFound(r) : PATH_NOT_FOUND;
    const by = info.custom ? "the CRD handler" : "the apiserver's router";
    return {
      rejection: { plugin: "routing", ...answer },
      exclusion: {
        code: "subresource-not-served",
        message: `${r.resource} has no ${r.subresource} subresource (discovery lists ${served}): ${by} answers ${answer.status} ${answer.message} for any method on ${name} before any admission plugin runs`,
      },
    };
  }
  const t = targetOf(info, r.subresource);
  if (!t) return undefined;
  if (r.operation === "CONNECT") {
    if (t.connects) return undefined;
    return {
      rejection: undefined,
      exclusion: {
        code: "operation-never-sent",
        message: `${name} is not a connect subresource: requests to it are admitted as CREATE, UPDATE or DELETE, never as CONNECT, so no hook is consulted for this one`,
      },
    };
  }
  if (t.connects)
    return {
      rejection: undefined,
      exclusion: {
        code: "operation-never-sent",
        message: `${name} is a connect subresource: every request to it is admitted as CONNECT, never as ${r.operation}, so no hook is consulted for this one`,
      },
    };
  if (VERBS[r.operation].some((v) => t.verbs.includes(v))) return undefined;
  const served = t.verbs.length > 0 ? t.verbs.join(", ") : "nothing";
  // A custom resource's status and scale are served by the CRD handler, which refuses any other
  // verb itself (customresource_handler.go, serveStatus and serveScale).
  const crd = info?.custom === true && r.subresource !== "";
  const answer = crd ? crdMethodNotSupported(r) : routerAnswer(t.verbs, r.operation, r.subresource);
  return {
    rejection: { plugin: "routing", ...answer },
    exclusion: {
      code: "method-not-allowed",
      message: `the apiserver serves no ${METHODS[r.operation]} on ${name} (discovery lists ${served}): ${crd ? "the CRD handler" : "its router"} refuses the ${r.operation} (${answer.status} ${answer.message}) before any admission plugin runs`,
    },
  };
}

/** `schema.GroupResource.String()`: `<resource>.<group>`, or the resource alone in the core group. */
function groupResource(r: AdmissionRequest): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

/** The verb the apiserver's request info names a CREATE or DELETE of a named subresource by. */
const SUBRESOURCE_VERB: Record<Exclude<AdmissionRequest["operation"], "CONNECT">, string> = {
  CREATE: "create",
  UPDATE: "update",
  DELETE: "delete",
};

/** The CRD handler's refusal of a verb on status or scale (`apierrors.NewMethodNotSupported`). */
function crdMethodNotSupported(r: AdmissionRequest): { status: number; message: string } {
  const verb = SUBRESOURCE_VERB[r.operation as Exclude<AdmissionRequest["operation"], "CONNECT">];
  return {
    status: 405,
    message: `${verb} is not supported on resources of kind ${JSON.stringify(groupResource(r))}`,
  };
}

/** The CRD handler's answer for a subresource it does not serve (`apierrors.NewNotFound`). */
function crdNotFound(r: AdmissionRequest): { status: number; message: string } {
  return { status: 404, message: `${groupResource(r)} ${JSON.stringify(r.name ?? "")} not found` };
}

/**
 * Whether a request of `operation` on the resource (or its `subresource`) can reach admission,
 * by discovery's verbs; when discovery does not list them, by the one rule that needs none: only
 * a subresource connects.
 */
export function reachesAdmission(
  operation: AdmissionRequest["operation"],
  info: DiscoveryResource,
  subresource: string,
): boolean {
  const t = targetOf(info, subresource);
  if (!t) return operation !== "CONNECT" || subresource !== "";
  if (operation === "CONNECT" || t.connects) return operation === "CONNECT" && t.connects;
  return VERBS[operation].some((v) => t.verbs.includes(v));
}
