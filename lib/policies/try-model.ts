/** The contract of POST /api/policies/try: a dry-run create and what admission said. Pure. */
import type { KubeApiErrorBody } from "@/lib/k8s/errors";
import { readStatusMessage } from "@/lib/admission/audit/status-message";

export interface TryResult {
  /** True when admission (and validation) let the create through. */
  allowed: boolean;
  /** Warning headers: what Warn validation actions (and deprecations) said. */
  warnings: string[];
  /** The object as it would be stored, mutations applied (when allowed). */
  object?: unknown;
  /** The apiserver's refusal (when not allowed). */
  error?: KubeApiErrorBody;
  /** Where it was sent. */
  resource: string;
  namespace?: string;
}

/**
 * The policy and binding an admission policy message names: the apiserver writes
 * `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: …` (after `<resource> "<name>"
 * is forbidden: `) and, for Warn, `Validation failed for ValidatingAdmissionPolicy 'p' with
 * binding 'b': …`. Only where the apiserver's words stand: a webhook's denial quoting them names
 * no binding.
 */
export function namedBinding(message: string): { policy: string; binding: string } | undefined {
  const WARNING = "Validation failed for ";
  const r = readStatusMessage(
    message.startsWith(WARNING) ? message.slice(WARNING.length) : message,
  );
  return r?.by === "policy" && r.binding !== ""
    ? { policy: r.hook, binding: r.binding }
    : undefined;
}

/**
 * The webhook that made the apiserver refuse the dry run itself: one with sideEffects Unknown or
 * Some (kept from v1beta1) is never called on a dry run; the request fails with 400 `admission
 * webhook "x" does not support dry run`, even with failurePolicy Ignore. Such a refusal is no
 * verdict on the object: the real create calls that webhook as usual.
 */
export function dryRunRefusedBy(result: TryResult): string | undefined {
  if (result.allowed || !result.error) return undefined;
  const r = readStatusMessage(result.error.message);
  return r?.by === "webhook" && r.message === "does not support dry run" ? r.hook : undefined;
}

/**
 * Whether a refused dry run is admission's denial: a webhook's or policy's refusal (or a failed
 * call to one), or a 403 (an admission plugin such as ResourceQuota or NamespaceLifecycle, or
 * RBAC). Anything else — an object of that name exists (409 AlreadyExists), the object is invalid
 * (422 Invalid from field validation, which validating admission never sees), a malformed
 * request — is the apiserver refusing the request itself: no verdict of admission on the object.
 */
export function deniedByAdmission(result: TryResult): boolean {
  if (result.allowed || !result.error) return false;
  return result.error.status === 403 || readStatusMessage(result.error.message) !== undefined;
}
