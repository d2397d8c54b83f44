"use client";

import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { legacyAccessQuery } from "@/lib/queries/webhooks";
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";
import type { AccessVerb } from "@/lib/webhooks/resource-kinds";

/** What the tab's identity may do with one historical kind, and why a control is off. */
export interface LegacyAccess {
  /** True once the SelfSubjectAccessReviews answered yes for `verb`. */
  can: (verb: AccessVerb) => boolean;
  /** Why a write control is disabled (undefined when it is allowed). */
  reason: (verb: AccessVerb) => string | undefined;
  /** True when the identity may not create, update or delete this kind at all. */
  readOnly: boolean;
}

/**
 * The SelfSubjectAccessReview answers for the historical kinds (`/api/webhooks/access?kinds=legacy`,
 * one query for every page), for one kind. Controls stay off until the answer arrives; the
 * apiserver still decides every write.
 */
export function useLegacyAccess(resource: LegacyResource): LegacyAccess {
  const { context } = useTabContext();
  const q = useQuery({ ...legacyAccessQuery(context ?? ""), enabled: !!context });
  const verbs = q.data?.[resource];
  const can = (verb: AccessVerb) => verbs?.[verb] === true;
  const reason = (verb: AccessVerb) =>
    can(verb)
      ? undefined
      : q.isPending
        ? "checking what your identity may do…"
        : q.error
          ? `could not ask the apiserver what your identity may do: ${q.error.message}`
          : `your identity may not ${verb} ${resource.replace(/^v1beta1-/, "v1beta1 ")}`;
  return {
    can,
    reason,
    readOnly: verbs !== undefined && !verbs.create && !verbs.update && !verbs.delete,
  };
}
