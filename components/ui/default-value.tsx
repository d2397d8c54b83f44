/** A field's value, or the apiserver's default (marked as such) when the field is not set. */
export function Val({ v, dflt }: { v: string | number | undefined; dflt?: string | number }) {
  if (v !== undefined) return <span className="mono">{v}</span>;
  if (dflt !== undefined)
    return (
      <span className="dflt" title="not set: the apiserver's default applies">
        {dflt} (default)
      </span>
    );
  return <span className="muted">unset</span>;
}
