import type { HealthReport } from "@/lib/api/health";
import { HookHealthCard } from "./hook-health-card";

/**
 * The health card of a configuration's hook at `index` on an object's page, or why there is
 * none yet. The report may lag a live edit: the row is matched by position and name both.
 */
export function HookHealthSlot({
  health,
  index,
  hookName,
  exemptionsHref,
  markers,
}: {
  health: { data?: HealthReport; error: Error | null };
  index: number;
  hookName: string;
  exemptionsHref?: string;
  /** Changes of the hook's configuration, marked on its latency line. */
  markers?: ReadonlyArray<{ id: number; time: number; title: string }>;
}) {
  if (health.error)
    return <p className="muted">Health could not be read: {health.error.message}</p>;
  if (!health.data) return <p className="muted">Reading the apiserver&apos;s metrics…</p>;
  const row = health.data.rows.find((r) => r.index === index && r.hook === hookName);
  if (!row) return <p className="muted">Health follows with the next report.</p>;
  return (
    <>
      {health.data.metricsError ? <p className="bad">{health.data.metricsError}</p> : null}
      <HookHealthCard row={row} exemptionsHref={exemptionsHref} markers={markers} />
    </>
  );
}
