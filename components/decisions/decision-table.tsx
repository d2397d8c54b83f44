import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { hasStaticSuffix } from "@/lib/admission/model/manifests";
import type { DecisionGroup } from "@/lib/decisions/group";
import { isPolicyKind, KIND_LABELS, OUTCOME_TONES } from "@/lib/decisions/outcomes";
import { userLabel } from "@/lib/decisions/user-label";
import { objectRefText } from "@/lib/decisions/object-ref";
import { messageGist } from "@/lib/decisions/message";
import { visibleText } from "@/lib/decisions/visible-text";
import { clockTime } from "@/lib/clock";
import { OutcomeBadge } from "./outcome-badge";

function target(d: DecisionRecord): string {
  const r = d.request;
  const res = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  return `${res} ${objectRefText(r)}`.trim();
}

/** The feed: one row per run of repeated decisions, newest first; a row opens its detail. */
export function DecisionTable({
  groups,
  selected,
  onSelect,
}: {
  groups: DecisionGroup[];
  selected: number | undefined;
  onSelect(id: number): void;
}) {
  return (
    <table className="data decisions" aria-label="Admission decisions">
      <thead>
        <tr>
          <th>Time</th>
          <th>Outcome</th>
          <th>Webhook / policy</th>
          <th>Operation</th>
          <th>Object</th>
          <th>User</th>
          <th>Message</th>
          <th className="num">Count</th>
        </tr>
      </thead>
      <tbody>
        {groups.map(({ first: d, count, oldest }) => (
          <tr
            key={d.id}
            className={`tone-row-${OUTCOME_TONES[d.outcome]}`}
            aria-selected={selected === d.id}
            data-hook={d.hook}
            data-audit-id={d.auditID}
            data-outcome={d.outcome}
          >
            <td className="mono" title={new Date(d.time).toISOString()}>
              {clockTime(d.time)}
            </td>
            <td>
              <OutcomeBadge outcome={d.outcome} />
            </td>
            <td>
              <button
                type="button"
                className="linkish mono"
                onClick={() => onSelect(d.id)}
                title={`${KIND_LABELS[d.kind]}${d.configuration ? ` in ${isPolicyKind(d.kind) ? "binding" : "configuration"} ${d.configuration}` : ""}`}
              >
                {d.hook || "(unnamed)"}
              </button>
              {hasStaticSuffix(d.hook) || hasStaticSuffix(d.configuration) ? (
                <span
                  className="badge static"
                  data-testid="static-decider"
                  title="configured outside the API: its name or its configuration's ends with the reserved suffix .static.k8s.io (loaded by the apiserver from a manifest file)"
                >
                  static
                </span>
              ) : null}
            </td>
            <td className="mono">
              {d.request.operation || d.request.verb}
              {d.request.dryRun ? <span className="badge"> dry run</span> : null}
            </td>
            <td className="mono ellipsis" title={target(d)}>
              {target(d)}
            </td>
            <td className="mono ellipsis" title={visibleText(d.request.user)}>
              {userLabel(d.request.user)}
            </td>
            <td className="ellipsis msg" title={visibleText(d.message) || undefined}>
              {messageGist(d.message)}
            </td>
            <td className="num">
              {count > 1 ? (
                <span title={`${count} alike since ${clockTime(oldest)}`}>×{count}</span>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
