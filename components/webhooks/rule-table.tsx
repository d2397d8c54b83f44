import type { V1RuleWithOperations } from "@/lib/k8s/types";
import {
  explainGroups,
  explainOperations,
  explainResource,
  explainScope,
  explainVersions,
} from "@/lib/webhooks/explain";

/** A hook's rules: the raw values and what they mean. */
export function RuleTable({ rules }: { rules: V1RuleWithOperations[] | undefined }) {
  if (!rules || rules.length === 0)
    return <p className="warn">No rules: the apiserver never calls this hook.</p>;
  return (
    <table className="data" aria-label="Rules">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Operations</th>
          <th scope="col">API groups</th>
          <th scope="col">Versions</th>
          <th scope="col">Resources</th>
          <th scope="col">Scope</th>
        </tr>
      </thead>
      <tbody>
        {rules.map((r, i) => (
          <tr key={i}>
            <td className="muted">{i}</td>
            <td>
              <span className="mono">{(r.operations ?? []).join(", ")}</span>
              <div className="hint">{explainOperations(r.operations)}</div>
            </td>
            <td>
              <span className="mono">
                {(r.apiGroups ?? []).map((g) => JSON.stringify(g)).join(", ")}
              </span>
              <div className="hint">{explainGroups(r.apiGroups)}</div>
            </td>
            <td>
              <span className="mono">{(r.apiVersions ?? []).join(", ")}</span>
              <div className="hint">{explainVersions(r.apiVersions)}</div>
            </td>
            <td>
              {(r.resources ?? []).map((res) => (
                <div key={res}>
                  <span className="mono">{res}</span>{" "}
                  <span className="hint">— {explainResource(res)}</span>
                </div>
              ))}
            </td>
            <td>
              <span className="mono">{r.scope ?? "*"}</span>
              <div className="hint">{explainScope(r.scope)}</div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
