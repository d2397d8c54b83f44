import { spanResourceLabel } from "@/lib/traces/resource-label";
import type { TraceSummary } from "@/lib/traces/summary";
import { TraceHistogram } from "./trace-histogram";
import { clockTime } from "@/lib/clock";

const ms = (x: number) => (x >= 100 ? Math.round(x).toString() : x.toFixed(1));

/** The apiserver's own timing of a hook's calls, from its spans: summary, chart, latest calls. */
export function TracedCalls({
  traces,
  timeoutSeconds,
  showRecent,
}: {
  traces: TraceSummary | undefined;
  timeoutSeconds: number;
  showRecent?: boolean;
}) {
  if (!traces) return <span className="muted">no traced calls</span>;
  return (
    <div className="traced-calls">
      <span className="mono" data-testid="trace-summary">
        {traces.calls} calls · p50 {ms(traces.p50)} · p99 {ms(traces.p99)} · max {ms(traces.max)} ms
      </span>
      {traces.atTimeout > 0 ? (
        <span className="bad"> · {traces.atTimeout} at the timeout</span>
      ) : null}
      <div>
        <TraceHistogram
          histogram={traces.histogram}
          timeoutSeconds={timeoutSeconds}
          label={`latency of ${traces.calls} traced calls against a ${timeoutSeconds} s timeout`}
        />
      </div>
      {showRecent ? (
        // Stacks into one block per call where its box is narrow (a phone): see .traced-recent.
        <div className="traced-recent">
          <table className="data compact" aria-label="Latest traced calls">
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Operation</th>
                <th scope="col">Resource</th>
                <th scope="col" className="num">
                  Took
                </th>
                <th scope="col">Request uid</th>
              </tr>
            </thead>
            <tbody>
              {traces.recent.map((c) => (
                <tr key={`${c.uid}-${c.startMs}`} data-uid={c.uid}>
                  <td>{clockTime(c.startMs)}</td>
                  <td>{c.operation}</td>
                  <td className="mono traced-resource" title={c.resource}>
                    {spanResourceLabel(c.resource, c.subresource)}
                  </td>
                  <td className={`num traced-took${c.failed ? " bad" : ""}`}>
                    {ms(c.durationMs)} ms{c.failed ? ", failed" : ""}
                  </td>
                  <td className="mono traced-uid">
                    <span className="traced-uid-label" aria-hidden="true">
                      uid{" "}
                    </span>
                    {c.uid}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
