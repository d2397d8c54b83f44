/** matchConditions: CEL filters, all of which must be true for the hook to be called. */
export function MatchConditions({
  conditions,
}: {
  conditions: Array<{ name?: string; expression?: string }> | undefined;
}) {
  if (!conditions || conditions.length === 0)
    return (
      <p className="hint">
        No matchConditions: every request that passes rules and selectors is sent.
      </p>
    );
  return (
    <table className="data" aria-label="Match conditions">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">CEL expression (all must be true)</th>
        </tr>
      </thead>
      <tbody>
        {conditions.map((c) => (
          <tr key={c.name}>
            <td className="mono">{c.name}</td>
            <td>
              <pre className="cel">{c.expression}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
