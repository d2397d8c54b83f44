/** The contract of POST /api/policies/try: a dry-run create and what admission said. Pure. */
import type { KubeApiErrorBody } from "@/lib/k8s/errors";
import { readStatusMessage } from "@/lib/admission/status-message";

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
