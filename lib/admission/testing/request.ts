/**
 * The AdmissionRequest of a test file's request, built as `portcullis predict` and the predict
 * page build one from parts (report/predict-report.ts `buildRequest`): the runner and the
 * dashboard's replay before apply both build their requests here. Pure.
 */
import {
  buildRequest,
  type RequestInputs,
  type RequestSpec,
} from "@/lib/admission/report/predict-report";
import type { JsonObject } from "@/lib/admission/validate/json";
import type { TestRequest } from "./format";

/** The labels of a Namespace object (`namespaceObject`), those that are strings. */
function labelsOfObject(o: Record<string, unknown>): Record<string, string> {
  const meta = o.metadata;
  const l = meta && typeof meta === "object" ? (meta as Record<string, unknown>).labels : undefined;
  if (!l || typeof l !== "object") return {};
  return Object.fromEntries(
    Object.entries(l).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/**
 * The namespace's labels a case gives: its Namespace object's, else its `namespaceLabels`;
 * undefined when it gives none (the snapshot's are used).
 */
export function caseNamespaceLabels(t: TestRequest): Record<string, string> | undefined {
  return t.namespaceObject !== undefined ? labelsOfObject(t.namespaceObject) : t.namespaceLabels;
}

/**
 * Builds a case's request from its parts: the object (a DELETE's is the old object), the old
 * object of an UPDATE, the namespace's labels of the case, and the user given (`who`: undefined
 * for the identity in `env`). Throws what buildRequest throws when it cannot be built.
 */
export function buildTestRequest(
  t: TestRequest,
  env: Omit<RequestInputs, "object" | "oldObject">,
  who: { user: string | undefined; groups: string[] } = { user: undefined, groups: [] },
): ReturnType<typeof buildRequest> {
  const spec: RequestSpec = {
    operation: t.operation,
    subresource: t.subresource ?? "",
    resource: t.resource,
    namespace: t.namespace,
    name: t.name,
    dryRun: t.dryRun ?? false,
    namespaceLabels: caseNamespaceLabels(t),
    user: who.user,
    groups: who.groups,
  };
  const object = t.operation === "DELETE" ? (t.oldObject ?? t.object ?? {}) : (t.object ?? {});
  return buildRequest(spec, {
    ...env,
    object: object as JsonObject,
    oldObject: (t.operation === "UPDATE" ? (t.oldObject ?? undefined) : undefined) as
      JsonObject | undefined,
  });
}
