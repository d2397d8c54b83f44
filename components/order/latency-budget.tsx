import type { OrderModel } from "@/lib/webhooks/order-view";

const hooks = (n: number) => `${n} ${n === 1 ? "hook" : "hooks"}`;

/** Worst-case added latency: every mutating hook at its timeout, twice if reinvoked, plus the slowest validator. */
export function LatencyBudget({ model }: { model: OrderModel }) {
  return (
    <section className="panel" aria-label="Latency budget">
      <h2>Worst-case latency budget</h2>
      <dl className="facts">
        <dt>Mutating (serial, both rounds)</dt>
        <dd className="num-left">
          {model.mutatingSeconds}s{" "}
          <span className="hint">
            {hooks(model.mutating.length)} in round 0, {model.reinvocation.length} may run again in
            round 1
          </span>
        </dd>
        <dt>Validating (parallel)</dt>
        <dd>
          {model.validatingSeconds}s{" "}
          <span className="hint">the slowest of {hooks(model.validating.length)}</span>
        </dd>
        <dt>Total added to a write</dt>
        <dd data-testid="worst-case">
          <strong>{model.worstCaseSeconds}s</strong>{" "}
          {model.worstCaseSeconds > 60 ? (
            <span className="bad">more than the apiserver&apos;s default 60s request timeout</span>
          ) : null}
        </dd>
      </dl>
    </section>
  );
}
