import type { MatchResourcesLike } from "@/lib/policies/view";
import { RuleTable } from "@/components/webhooks/rule-table";
import { SelectorChips } from "@/components/webhooks/selector-chips";
import { Val } from "@/components/ui/default-value";

/**
 * A policy's matchConstraints or a binding's matchResources, explained like a webhook's rules and
 * selectors. Resource names, when a rule lists them, narrow it to those objects.
 */
export function MatchResources({
  match,
  label,
}: {
  match: MatchResourcesLike | undefined;
  label: string;
}) {
  if (!match)
    return (
      <p className="hint">
        No {label}: the binding applies wherever the policy&apos;s matchConstraints match.
      </p>
    );
  const named = (match.resourceRules ?? []).filter((r) => r.resourceNames?.length);
  return (
    <div className="stack" aria-label={label}>
      <dl className="facts">
        <dt>matchPolicy</dt>
        <dd>
          <Val v={match.matchPolicy} dflt="Equivalent" />
        </dd>
      </dl>
      {match.resourceRules?.length ? (
        <RuleTable rules={match.resourceRules} />
      ) : (
        <p className="hint">
          No resourceRules: every resource the policy&apos;s matchConstraints match, narrowed only
          by the selectors below.
        </p>
      )}
      {named.map((r, i) => (
        <p key={i} className="hint">
          Only objects named <span className="mono">{(r.resourceNames ?? []).join(", ")}</span> for{" "}
          <span className="mono">{(r.resources ?? []).join(", ")}</span>.
        </p>
      ))}
      {match.excludeResourceRules?.length ? (
        <>
          <h4>Excluded (excludeResourceRules win over resourceRules)</h4>
          <RuleTable rules={match.excludeResourceRules} />
        </>
      ) : null}
      <SelectorChips
        label="namespaceSelector"
        selector={match.namespaceSelector}
        subject="namespace"
      />
      <SelectorChips label="objectSelector" selector={match.objectSelector} subject="object" />
    </div>
  );
}
