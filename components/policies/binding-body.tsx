import Link from "next/link";
import { objectPagePath, type PolicyResource } from "@/lib/webhooks/resource-kinds";
import { POLICY_OF, rulesSummary, type BindingLike, type PolicyLike } from "@/lib/policies/view";
import type { ParamsStatus } from "@/lib/policies/params-model";
import { MatchResources } from "./match-resources";
import { ParamsFacts } from "./params-facts";

const ACTION_MEANING: Record<string, string> = {
  Deny: "a failed validation rejects the request",
  Warn: "a failed validation is returned to the client as a warning; the request goes on",
  Audit: "a failed validation is recorded in the audit event",
};

/** Every field of a policy binding: its policy, actions, params and where it applies. */
export function BindingBody({
  resource,
  binding,
  policy,
  params,
}: {
  resource: Extract<PolicyResource, `${string}bindings`>;
  binding: BindingLike;
  policy: PolicyLike | undefined;
  params: ParamsStatus | undefined;
}) {
  const spec = binding.spec ?? {};
  const mutating = resource === "mutatingadmissionpolicybindings";
  const ref = spec.paramRef;
  return (
    <>
      <dl className="facts">
        <dt>policyName</dt>
        <dd>
          {policy ? (
            <Link
              className="mono"
              href={objectPagePath(POLICY_OF[resource], spec.policyName ?? "")}
            >
              {spec.policyName}
            </Link>
          ) : (
            <span className="bad" role="alert">
              {spec.policyName}: no such policy, this binding does nothing
            </span>
          )}
        </dd>
        {mutating ? null : (
          <>
            <dt>validationActions</dt>
            <dd>
              {(spec.validationActions ?? []).map((a) => (
                <div key={a}>
                  <span className="mono">{a}</span>{" "}
                  <span className="hint">— {ACTION_MEANING[a] ?? "unknown action"}</span>
                </div>
              ))}
            </dd>
          </>
        )}
        {policy ? (
          <>
            <dt>policy matches</dt>
            <dd className="mono">{rulesSummary(policy.spec?.matchConstraints?.resourceRules)}</dd>
          </>
        ) : null}
      </dl>
      <section className="panel" aria-label="Parameters">
        <h2>
          Parameters{" "}
          <span className="hint">
            {policy?.spec?.paramKind
              ? `${policy.spec.paramKind.kind} (${policy.spec.paramKind.apiVersion})`
              : ""}
          </span>
        </h2>
        {ref ? (
          <dl className="facts">
            <dt>paramRef</dt>
            <dd className="mono">
              {ref.namespace ? `${ref.namespace}/` : ""}
              {ref.name ?? (ref.selector ? "selector" : "")}
            </dd>
            <dt>parameterNotFoundAction</dt>
            <dd className="mono">{ref.parameterNotFoundAction ?? "Deny"}</dd>
          </dl>
        ) : null}
        <ParamsFacts status={params} />
      </section>
      <section className="panel" aria-label="Match resources">
        <h2>
          matchResources{" "}
          <span className="hint">
            a request must match the policy&apos;s matchConstraints and these
          </span>
        </h2>
        <MatchResources match={spec.matchResources} label="matchResources" />
      </section>
    </>
  );
}
