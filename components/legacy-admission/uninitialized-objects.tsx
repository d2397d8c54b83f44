"use client";

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { uninitializedQuery } from "@/lib/queries/initializers";
import { DEFAULT_STUCK_AFTER_SECONDS } from "@/lib/admission/historical/uninitialized";
import { ErrorBox } from "@/components/ui/error-box";

const THRESHOLDS = [
  { seconds: 60, label: "1 minute" },
  { seconds: 300, label: "5 minutes" },
  { seconds: DEFAULT_STUCK_AFTER_SECONDS, label: "10 minutes" },
  { seconds: 3600, label: "1 hour" },
];

function age(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function resourceLabel(o: { group: string; resource: string }): string {
  return o.group === "" ? o.resource : `${o.resource}.${o.group}`;
}

/**
 * Objects still waiting for their initializers (`?includeUninitialized=true`, 1.7–1.13 only):
 * age, the initializer each waits on (the head of its pending list), and the stuck ones grouped
 * by the initializer that blocks them. Where the real API is not served, one line says so.
 */
export function UninitializedObjects() {
  const { context } = useTabContext();
  const [threshold, setThreshold] = useState(DEFAULT_STUCK_AFTER_SECONDS);
  const q = useQuery({ ...uninitializedQuery(context ?? "", threshold), enabled: !!context });
  const d = q.data;
  return (
    <section className="panel" aria-labelledby="uninit-h">
      <h2 id="uninit-h">Uninitialized objects</h2>
      {q.error ? <ErrorBox error={q.error} /> : null}
      {!d ? (
        q.isPending ? (
          <p className="muted">Reading…</p>
        ) : null
      ) : !d.served ? (
        <p className="hint" data-testid="uninitialized-not-served">
          Not shown: {d.reason}
        </p>
      ) : (
        <>
          <div className="toolbar">
            <label>
              Stuck after{" "}
              <select value={threshold} onChange={(e) => setThreshold(Number(e.target.value))}>
                {THRESHOLDS.map((t) => (
                  <option key={t.seconds} value={t.seconds}>
                    {t.label}
                  </option>
                ))}
              </select>
            </label>
            <span className="hint">
              read {d.readAt.replace("T", " ").replace(/\.\d+Z$/, " UTC")} from{" "}
              {d.covered.map(resourceLabel).join(", ") || "no collection (no initializer matches)"}
            </span>
          </div>
          {d.report.stuck.length > 0 ? (
            <div className="alert" role="alert" aria-label="Stuck objects">
              <p>
                An initializer controller that is down blocks every new object it covers: only the
                head of the pending list acts.
              </p>
              <ul>
                {d.report.stuck.map((g) => (
                  <li key={g.initializer} data-testid={`stuck-${g.initializer}`}>
                    <span className="mono">{g.initializer}</span> blocks {g.count}{" "}
                    {g.count === 1 ? "object" : "objects"} (oldest {age(g.oldestAgeSeconds)}); new{" "}
                    {g.covers.join(", ") || "objects"} wait on it too
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {d.report.objects.length === 0 ? (
            <p className="muted">No object is waiting for an initializer.</p>
          ) : (
            <table className="data" aria-label="Objects waiting for initializers">
              <thead>
                <tr>
                  <th scope="col">Object</th>
                  <th scope="col" className="num">
                    Age
                  </th>
                  <th scope="col">Waiting on</th>
                  <th scope="col">Pending</th>
                </tr>
              </thead>
              <tbody>
                {d.report.objects.map((o) => (
                  <tr
                    key={`${resourceLabel(o)}/${o.namespace}/${o.name}`}
                    className={o.stuck ? "bad" : undefined}
                  >
                    <td className="mono">
                      {resourceLabel(o)} {o.namespace ? `${o.namespace}/` : ""}
                      {o.name}
                    </td>
                    <td className="num">
                      {age(o.ageSeconds)}
                      {o.stuck ? " (stuck)" : ""}
                    </td>
                    <td className="mono">{o.waitingOn}</td>
                    <td className="mono">{o.pending.join(" → ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {d.notices.length > 0 ? (
            <ul className="hint" aria-label="Notices">
              {d.notices.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          ) : null}
        </>
      )}
    </section>
  );
}
