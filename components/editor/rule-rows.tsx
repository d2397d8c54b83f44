"use client";

import type { V1RuleWithOperations } from "@/lib/k8s/types";

const LIST_FIELDS = ["operations", "apiGroups", "apiVersions", "resources"] as const;

function listText(v: string[] | undefined): string {
  return (v ?? []).map((x) => (x === "" ? '""' : x)).join(", ");
}

function parseList(s: string): string[] {
  return s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "")
    .map((x) => (x === '""' ? "" : x));
}

/** A hook's rules as editable rows (comma-separated lists; "" is the core group). */
export function RuleRows({
  rules,
  readOnly,
  onSet,
}: {
  rules: V1RuleWithOperations[];
  readOnly: boolean;
  onSet: (path: Array<string | number>, value: unknown) => void;
}) {
  return (
    <table className="data rule-rows" aria-label="Rules (form)">
      <thead>
        <tr>
          <th scope="col">operations</th>
          <th scope="col">apiGroups</th>
          <th scope="col">apiVersions</th>
          <th scope="col">resources</th>
          <th scope="col">scope</th>
          <th scope="col" />
        </tr>
      </thead>
      <tbody>
        {rules.map((r, j) => (
          <tr key={`${j}:${JSON.stringify(r)}`}>
            {LIST_FIELDS.map((f) => (
              <td key={f}>
                <input
                  aria-label={`rule ${j} ${f}`}
                  defaultValue={listText(r[f])}
                  disabled={readOnly}
                  onBlur={(e) => {
                    const next = parseList(e.target.value);
                    if (JSON.stringify(next) !== JSON.stringify(r[f] ?? [])) onSet([j, f], next);
                  }}
                />
              </td>
            ))}
            <td>
              <select
                aria-label={`rule ${j} scope`}
                value={r.scope ?? ""}
                disabled={readOnly}
                onChange={(e) => onSet([j, "scope"], e.target.value || undefined)}
              >
                <option value="">(default: *)</option>
                <option value="*">*</option>
                <option value="Cluster">Cluster</option>
                <option value="Namespaced">Namespaced</option>
              </select>
            </td>
            <td>
              <button type="button" disabled={readOnly} onClick={() => onSet([j], undefined)}>
                Remove
              </button>
            </td>
          </tr>
        ))}
        <tr>
          <td colSpan={6}>
            <button
              type="button"
              disabled={readOnly}
              onClick={() =>
                onSet([rules.length], {
                  operations: ["CREATE"],
                  apiGroups: [""],
                  apiVersions: ["v1"],
                  resources: ["pods"],
                })
              }
            >
              Add rule
            </button>
          </td>
        </tr>
      </tbody>
    </table>
  );
}
