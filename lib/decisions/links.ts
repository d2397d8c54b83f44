/** Where a decision's webhook or policy lives in the dashboard (pure). */
import type { DeciderKind } from "@/lib/admission/audit/audit";
import type { HookSourceKind } from "@/lib/admission/model/hook-identity";
import { hookTargetParam, type HookTarget } from "@/lib/predict/links";
import { objectPagePath } from "@/lib/webhooks/resource-kinds";
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
        decisions: hookDecisionsHref(
          d.hook,
          d.kind === "mutating-webhook"
            ? "MutatingWebhookConfiguration"
            : "ValidatingWebhookConfiguration",
        ),
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
        decisions: policyDecisionsHref(d.hook, kind),
        decider: d.hook ? policyHref(kind, d.hook) : undefined,
        configuration: cfg && policyBindingHref(kind, cfg),
      };
    }
    case "pod-security":
      // An in-tree plugin: no page of its own; Predict shows its verdict on a pod.
      return { decisions: policyDecisionsHref(d.hook) };
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
    // The matrix's `only` and `all` parameters (lib/namespaces/matrix-params.ts; not imported:
    // it pulls the exemption engine into this page's first load): the columns of the hooks with
    // exactly this name (in whichever configurations), shown whatever request the matrix is set to.
    matrix: `/namespaces?${new URLSearchParams({ only: hook, all: "1" }).toString()}`,
  };
}

const SOURCE_OF_KIND: Partial<Record<DeciderKind, HookSourceKind>> = {
  "mutating-webhook": "MutatingWebhookConfiguration",
  "validating-webhook": "ValidatingWebhookConfiguration",
  "mutating-policy": "MutatingAdmissionPolicy",
  "validating-policy": "ValidatingAdmissionPolicy",
};

/** Most prediction links the feed offers for one webhook (a name may be in several places). */
const MAX_PREDICT_TARGETS = 3;

/**
 * For the feed filtered to a webhook or a policy: the hooks to predict, as its decisions name
 * them. A webhook's configuration is known only from its mutating calls and fail-opens (a denial
 * or error names just the webhook), so a webhook with none of those in sight gets none; a policy
 * is predicted with any of its bindings.
 */
export function predictTargets(
  items: ReadonlyArray<{ kind: DeciderKind; hook: string; configuration: string }>,
  filter: { hook?: string; policy?: string },
): HookTarget[] {
  const out = new Map<string, HookTarget>();
  for (const d of items) {
    if (out.size >= MAX_PREDICT_TARGETS) break;
    const source = SOURCE_OF_KIND[d.kind];
    if (!source) continue;
    const policy = d.kind === "mutating-policy" || d.kind === "validating-policy";
    let t: HookTarget | undefined;
    if (policy && filter.policy !== undefined && d.hook === filter.policy)
      t = { source, configuration: d.hook, name: "" };
    else if (!policy && filter.hook !== undefined && d.hook === filter.hook && d.configuration)
      t = { source, configuration: d.configuration, name: d.hook };
    if (t) out.set(hookTargetParam(t), t);
  }
  return [...out.values()];
}
