/** Where a decision's webhook or policy lives in the dashboard (pure). */
import type { DeciderKind } from "@/lib/admission/audit";
import { objectPagePath } from "@/lib/webhooks/kinds";
import { listStateQuery, parseListState } from "@/lib/webhooks/list-filter";
import {
  hookDecisionsHref,
  policyBindingHref,
  policyDecisionsHref,
  policyHref,
} from "@/lib/health/links";

export interface DeciderLinks {
  /** The feed filtered to this webhook or policy. */
  decisions: string;
  /** The policy's own page (policies: the decision names the policy). */
  decider?: string;
  /** The webhook configuration's or the policy binding's page, when the decision names it. */
  configuration?: string;
  /**
   * The webhook list searched for the webhook's name, when the decision does not name its
   * configuration (a denial or error read from the response status).
   */
  findConfiguration?: string;
}

/**
 * Links for a decision's decider. A mutating call's annotation and a fail-open name the
 * configuration; a denial or error read from the response status names only the webhook (kind
 * "webhook"), so it links to the webhook's decisions and to the webhook list searched for its
 * name (the name may be in several configurations, or in none any more).
 */
export function deciderLinks(d: {
  kind: DeciderKind;
  hook: string;
  configuration?: string;
}): DeciderLinks {
  const cfg = d.configuration || undefined;
  switch (d.kind) {
    case "mutating-webhook":
    case "validating-webhook":
      return {
        decisions: hookDecisionsHref(d.hook),
        configuration:
          cfg &&
          objectPagePath(
            d.kind === "mutating-webhook"
              ? "mutatingwebhookconfigurations"
              : "validatingwebhookconfigurations",
            cfg,
          ),
      };
    case "validating-policy":
    case "mutating-policy": {
      const kind =
        d.kind === "validating-policy" ? "ValidatingAdmissionPolicy" : "MutatingAdmissionPolicy";
      return {
        decisions: policyDecisionsHref(d.hook),
        decider: d.hook ? policyHref(kind, d.hook) : undefined,
        configuration: cfg && policyBindingHref(kind, cfg),
      };
    }
    default:
      return d.hook
        ? { decisions: hookDecisionsHref(d.hook), findConfiguration: hookContextLinks(d.hook).list }
        : { decisions: hookDecisionsHref(d.hook) };
  }
}

/**
 * For the feed filtered to one webhook: the webhook list searched for it, and the exemption matrix
 * showing its column.
 */
export function hookContextLinks(hook: string): { list: string; matrix: string } {
  return {
    list: `/webhooks?${listStateQuery({ ...parseListState(new URLSearchParams()), q: hook })}`,
    // The matrix's `hook` and `all` parameters (lib/namespaces/matrix-params.ts; not imported:
    // it pulls the exemption engine into this page's first load). all=1: the column is shown
    // whatever request the matrix is set to.
    matrix: `/namespaces?${new URLSearchParams({ hook, all: "1" }).toString()}`,
  };
}
