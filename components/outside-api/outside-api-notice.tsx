"use client";

import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import type { OutsideApiHook } from "@/lib/admission/outside-api/infer";
import type { OutsideApiResponse } from "@/lib/api/outside-api";
import { clockTime } from "@/lib/clock";
import { outsideApiQuery } from "@/lib/queries/outside-api";

const EVIDENCE: Record<OutsideApiHook["evidence"], string> = {
  "reserved-name": "named with the reserved suffix .static.k8s.io",
  "unknown-name":
    "no API object has this name and its plugin loads manifests (or it was deleted since the apiserver started)",
};

const when = (ms: number | undefined) => (ms === undefined ? "—" : clockTime(ms));

/** The hooks and policies seen outside the API, one row each. */
function OutsideApiTable({ hooks }: { hooks: readonly OutsideApiHook[] }) {
  return (
    <table className="data" data-testid="outside-api-hooks">
      <thead>
        <tr>
          <th>Name</th>
          <th>Plugin</th>
          <th>Configuration or bindings</th>
          <th>Why</th>
          <th>First seen</th>
          <th>Last seen</th>
          <th className="num">Calls</th>
          <th className="num">Errors</th>
        </tr>
      </thead>
      <tbody>
        {hooks.map((h) => (
          <tr key={`${h.plugin}/${h.name}`}>
            <td className="mono">{h.name}</td>
            <td>{h.plugin}</td>
            <td className="mono">{h.parents.length > 0 ? h.parents.join(", ") : "—"}</td>
            <td>
              {EVIDENCE[h.evidence]}{" "}
              <span className="muted">(seen in {h.seenIn.join(" and ")})</span>
            </td>
            <td>{when(h.firstSeen)}</td>
            <td>{when(h.lastSeen)}</td>
            <td className="num">{h.calls}</td>
            <td className="num">{h.errors}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The plugins the apiserver says load a manifest directory: what is known without the files. */
function PluginLine({ r }: { r: OutsideApiResponse }) {
  if (r.plugins.length === 0) return null;
  return (
    <ul className="muted" data-testid="outside-api-plugins">
      {r.plugins.map((p) => (
        <li key={p.plugin}>
          {p.plugin}: a manifest set in force ({p.hashes.join(", ") || "empty"}), {p.loads} load
          {p.loads === 1 ? "" : "s"}
          {p.lastLoad !== undefined ? `, the last at ${clockTime(p.lastLoad)}` : ""}
          {p.failedReloads > 0
            ? ` · ${p.failedReloads} failed reload${p.failedReloads === 1 ? "" : "s"} (the previous set kept)${
                p.lastFailure !== undefined ? `, the last at ${clockTime(p.lastFailure)}` : ""
              }`
            : ""}
        </li>
      ))}
    </ul>
  );
}

/**
 * "N hooks or policies are configured outside the API": what the apiserver's metrics and the
 * stored decisions show of hooks and policies loaded from manifest files the dashboard was not
 * given. Nothing when there are none. `full` (Health) shows every one and the plugins' sets;
 * elsewhere the list folds away under the sentence.
 */
export function OutsideApiNotice({ full = false }: { full?: boolean }) {
  const { context = "" } = useTabContext();
  const q = useQuery({ ...outsideApiQuery(context), enabled: context !== "" });
  const r = q.data;
  // With the directories read, their objects are on the pages: only what they lack is news.
  if (!r || (r.hooks.length === 0 && (!full || r.plugins.length === 0 || r.directoriesRead)))
    return null;
  const body = (
    <>
      <p className="muted">
        The apiserver loads them from manifest files (a{" "}
        <span className="mono">staticManifestsDir</span> per admission plugin){" "}
        {r.directoriesRead
          ? "that the directories this dashboard reads do not hold (a directory it was not given, or another apiserver's files)"
          : "this dashboard was not given"}
        : no list shows them, and Predict, the call order, the exemption matrix and the deadlock map
        leave them out, though they run before the API&apos;s hooks and policies of their plugin.
        What is known of each comes from the apiserver&apos;s metrics and audit events. Give the
        dashboard the directories (<span className="mono">PORTCULLIS_ADMISSION_MANIFESTS</span>) to
        see them whole.
      </p>
      {r.hooks.length > 0 ? <OutsideApiTable hooks={r.hooks} /> : null}
      <PluginLine r={r} />
      {r.metricsError ? <p className="muted">Metrics unread: {r.metricsError}</p> : null}
      {r.decisionsError ? <p className="muted">Decisions unread: {r.decisionsError}</p> : null}
    </>
  );
  return (
    <section
      className="callout"
      aria-label="Configured outside the API"
      data-testid="outside-api-notice"
    >
      {full ? (
        <>
          <strong>{r.sentence}</strong>
          {body}
        </>
      ) : (
        <details>
          <summary>
            <strong>{r.sentence}</strong>
          </summary>
          {body}
        </details>
      )}
    </section>
  );
}
