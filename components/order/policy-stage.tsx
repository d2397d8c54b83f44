import Link from "next/link";
import { objectPagePath } from "@/lib/webhooks/resource-kinds";
import type { PolicyOrderEntry } from "@/lib/webhooks/order-view";
import { StaticBadge } from "@/components/outside-api/static-badge";

/** Admission policies in the call order: each (policy, binding) pair the apiserver evaluates. */
export function PolicyStage({
  title,
  note,
  entries,
  mutating,
}: {
  title: string;
  note: string;
  entries: PolicyOrderEntry[];
  mutating: boolean;
}) {
  const policyResource = mutating ? "mutatingadmissionpolicies" : "validatingadmissionpolicies";
  const bindingResource = mutating
    ? "mutatingadmissionpolicybindings"
    : "validatingadmissionpolicybindings";
  return (
    <section className="panel" aria-label={title}>
      <h2>
        {title} <span className="hint">{note}</span>
      </h2>
      {entries.length === 0 ? <p className="muted">No bindings.</p> : null}
      <ul className="config-order">
        {entries.map((e) => (
          <li key={e.key} data-testid={`policy-${e.policy}/${e.binding}`}>
            <Link className="mono" href={objectPagePath(policyResource, e.policy)}>
              {e.policy}
            </Link>{" "}
            <span className="muted">via</span>{" "}
            <Link className="mono" href={objectPagePath(bindingResource, e.binding)}>
              {e.binding}
            </Link>{" "}
            <StaticBadge origin={e.origin} />
            {e.policyMissing ? (
              <span className="badge bad">policy missing: does nothing</span>
            ) : (
              <span className="hint">
                failurePolicy {e.failurePolicy}
                {mutating
                  ? ` · reinvocation ${e.reinvocationPolicy}`
                  : ` · ${e.validationActions.join(", ")}`}
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
