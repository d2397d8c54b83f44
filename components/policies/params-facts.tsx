import { paramsWarn, type ParamsStatus } from "@/lib/policies/params-model";

/** What a binding's paramRef resolves to; a warning when the parameters are missing. */
export function ParamsFacts({ status }: { status: ParamsStatus | undefined }) {
  if (!status) return <p className="muted">Resolving parameters…</p>;
  const warn = paramsWarn(status);
  return (
    <div data-testid="params-status" data-state={status.state}>
      <p className={warn ? "alert" : "hint"} role={warn ? "alert" : undefined}>
        {warn ? "Parameters missing: " : ""}
        {status.message}
      </p>
      {status.objects.length > 0 ? (
        <ul>
          {status.objects.map((o) => (
            <li key={`${o.namespace ?? ""}/${o.name}`} className="mono">
              {status.paramKind?.kind} {o.namespace ? `${o.namespace}/` : ""}
              {o.name}
            </li>
          ))}
          {status.total > status.objects.length ? (
            <li className="muted">and {status.total - status.objects.length} more</li>
          ) : null}
        </ul>
      ) : null}
    </div>
  );
}
