/** The contract of POST /api/policies/try: a dry-run create and what admission said. Pure. */
import type { KubeApiErrorBody } from "@/lib/k8s/errors";

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
 * `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: …` and, for Warn,
 * `Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': …`.
 */
export function namedBinding(message: string): { policy: string; binding: string } | undefined {
  const m = /AdmissionPolicy '([^']{1,253})' with binding '([^']{1,253})'/.exec(
    message.slice(0, 4096),
  );
  return m ? { policy: m[1]!, binding: m[2]! } : undefined;
}
