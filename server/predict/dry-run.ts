import "server-only";
import { randomUUID } from "node:crypto";
import type { DryRunInput, DryRunVerdict } from "@/lib/api/predict";
import { KubeApiError } from "@/lib/k8s/errors";
import { readStatusMessage } from "@/lib/admission/audit/status-message";
import type { KubeClient } from "@/server/kube/client";
import { groupVersionResources } from "@/server/kube/resolve-kind";
import { isConnectKind } from "@/lib/admission/prediction/served-operations";

function basePath(r: DryRunInput): string {
  const root = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = r.namespace === "" ? "" : `/namespaces/${encodeURIComponent(r.namespace)}`;
  return `${root}${ns}/${r.resource}`;
}

/**
 * Whether the apiserver's message is an admission denial: a webhook's, a policy's, or a hook the
 * dry run cannot call (read where the apiserver's own words stand, not inside a quoted message).
 */
function isDenial(message: string): boolean {
  const r = readStatusMessage(message);
  return (
    r !== undefined &&
    (r.by === "policy" || r.outcome === "denied" || r.message === "does not support dry run")
  );
}

/**
 * Whether discovery of the request's group version says its subresource is a connect one. (A
 * group version the cluster does not serve has none: the request itself is answered 404.)
 */
async function connects(
  client: KubeClient,
  r: DryRunInput,
  signal?: AbortSignal,
): Promise<boolean> {
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  const resources = await groupVersionResources(client, apiVersion, signal);
  const sub = resources?.find((x) => x.name === `${r.resource}/${r.subresource}`);
  return sub !== undefined && isConnectKind(sub.kind);
}

/**
 * Sends the request as a server-side dry run (`dryRun=All`) as the client's identity and reads
 * the apiserver's verdict. Admission runs in full; nothing is stored; only hooks with sideEffects
 * None or NoneOnDryRun may be called (others make the apiserver refuse the dry run).
 */
export async function dryRun(
  client: KubeClient,
  r: DryRunInput,
  signal?: AbortSignal,
): Promise<DryRunVerdict> {
  if (r.operation === "CONNECT")
    return {
      outcome: "unsupported",
      message:
        "CONNECT requests (exec, attach, port-forward, proxy) have no dry run: the apiserver would run them for real",
      warnings: [],
    };
  if (r.operation !== "CREATE" && r.name === "")
    return {
      outcome: "unsupported",
      message: `${r.operation} needs the object's name (metadata.name)`,
      warnings: [],
    };
  // A connect subresource admits every method as CONNECT and then runs it for real (a PUT to
  // pods/…/proxy reaches the pod): whatever the operation asked for, it has no dry run.
  if (r.subresource !== "" && (await connects(client, r, signal)))
    return {
      outcome: "unsupported",
      message: `${r.resource}/${r.subresource} is a connect subresource: every request to it is admitted as CONNECT and then run for real, so it has no dry run`,
      warnings: [],
    };
  const base = basePath(r);
  const named = `${base}/${encodeURIComponent(r.name)}${r.subresource ? `/${r.subresource}` : ""}`;
  const query = { dryRun: "All", fieldValidation: "Strict" };
  // The apiserver adopts a client's Audit-ID: the page finds this request's audit event by it.
  const auditID = randomUUID();
  const headers = { "Audit-ID": auditID };
  try {
    const { warnings } = await (r.operation === "CREATE"
      ? client.requestWithWarnings({
          method: "POST",
          path: r.subresource ? named : base,
          query,
          body: r.object ?? {},
          headers,
          signal,
        })
      : r.operation === "UPDATE"
        ? client.requestWithWarnings({
            method: "PUT",
            path: named,
            query,
            body: r.object ?? {},
            headers,
            signal,
          })
        : client.requestWithWarnings({
            method: "DELETE",
            path: named,
            query: { dryRun: "All" },
            body: { apiVersion: "v1", kind: "DeleteOptions", dryRun: ["All"] },
            headers,
            signal,
          }));
    return { outcome: "allowed", status: 200, warnings, auditID };
  } catch (e) {
    if (!(e instanceof KubeApiError)) throw e;
    return {
      outcome: isDenial(e.message) ? "denied" : "error",
      status: e.status,
      reason: e.reason,
      message: e.message,
      warnings: [],
      auditID,
    };
  }
}
