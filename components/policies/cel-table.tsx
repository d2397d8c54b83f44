/** One CEL expression per row, shown as code, with the apiserver's type-checking warnings in place. */
export interface CelRow {
  key: string;
  /** What the expression is for (a name, a key, a patch type). */
  label: string;
  expression: string | undefined;
  /** Extra facts shown under the code (message, reason). */
  notes?: Array<[string, string | undefined]>;
  warnings?: string[];
}

export function CelTable({ rows, title, empty }: { rows: CelRow[]; title: string; empty: string }) {
  if (rows.length === 0) return <p className="hint">{empty}</p>;
  return (
    <table className="data" aria-label={title}>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Role</th>
          <th scope="col">CEL</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={r.key}>
            <td className="muted">{i}</td>
            <td className="mono">{r.label}</td>
            <td>
              <pre className="cel">{r.expression ?? ""}</pre>
              {(r.notes ?? [])
                .filter(([, v]) => v !== undefined && v !== "")
                .map(([k, v]) => (
                  <div key={k} className="hint">
                    {k}: <span className="mono">{v}</span>
                  </div>
                ))}
              {(r.warnings ?? []).map((w, j) => (
                <div key={j} className="warn" role="note" data-testid="type-warning">
                  type check: {w}
                </div>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
