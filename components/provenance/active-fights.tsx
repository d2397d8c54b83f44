"use client";

import Link from "next/link";
import { useQueries, useQuery } from "@tanstack/react-query";
import type { ReconcileFight } from "@/lib/admission/provenance/fights";
import type { ResourceRef } from "@/lib/k8s/resources";
import { collectionQuery } from "@/lib/queries/collections";
import { fightsQuery } from "@/lib/queries/webhooks";
import { isAdmissionResource, KIND_OF, objectPagePath } from "@/lib/webhooks/resource-kinds";

/** The dashboard page of the object a fight is on (undefined: a kind without one). */
function pageOf(f: ReconcileFight): string | undefined {
  const resource = Object.entries(KIND_OF).find(([, kind]) => kind === f.kind)?.[0];
  return resource && isAdmissionResource(resource) ? objectPagePath(resource, f.name) : undefined;
}

/**
 * The reconcile fights the dashboard's watches are seeing now, one finding row each linking to
 * the object it is on (the webhooks list and the overview). Read again whenever one of `refs`
 * changes — the collections the page already keeps live, so nothing is polled; a fight is a
 * change of one of them. Shows nothing while there is none; a fight on an object since deleted is
 * left out.
 */
export function ActiveFights({
  context,
  refs,
  kinds,
  spaced = false,
}: {
  context: string;
  /** The live collections whose changes may be fights. */
  refs: readonly ResourceRef[];
  /** Only fights on these kinds (all when omitted). */
  kinds?: readonly string[];
  /** Set apart from what is above it (the overview's panels). */
  spaced?: boolean;
}) {
  const collections = useQueries({
    queries: refs.map((ref) => ({ ...collectionQuery(context, ref), enabled: context !== "" })),
  });
  const stamp = collections.map((c) => c.data?.resourceVersion ?? "").join(",");
  const ready = context !== "" && collections.every((c) => c.data !== undefined);
  const fights = useQuery({ ...fightsQuery(context, stamp), enabled: ready });
  // Only fights on objects that still exist (a fight is kept for a while after its last change).
  const present = new Set(
    refs.flatMap((ref, i) => {
      const kind = isAdmissionResource(ref.resource) ? KIND_OF[ref.resource] : undefined;
      return kind
        ? (collections[i]?.data?.items ?? []).map((o) => `${kind}/${o.metadata?.name ?? ""}`)
        : [];
    }),
  );
  const shown = (fights.data?.fights ?? []).filter(
    (f) => (!kinds || kinds.includes(f.kind)) && present.has(`${f.kind}/${f.name}`),
  );
  if (shown.length === 0) return null;
  return (
    <section
      className="panel"
      aria-labelledby="fights-h"
      data-testid="active-fights"
      style={spaced ? { marginTop: 12 } : undefined}
    >
      <h2 id="fights-h">Reconcile fights</h2>
      <p className="hint">
        Two field managers changing the same field back and forth, seen in the watch stream since{" "}
        {fights.data?.since}: whatever one writes, the other writes back.
      </p>
      <table className="data">
        <thead>
          <tr>
            <th scope="col">Finding</th>
            <th scope="col">Object</th>
            <th scope="col">Field</th>
            <th scope="col">Managers</th>
            <th scope="col">Changes</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((f) => {
            const href = pageOf(f);
            const last = f.changes[f.changes.length - 1]?.at;
            return (
              <tr key={`${f.kind}/${f.name}/${f.path}`} data-testid="fight-row" data-name={f.name}>
                <td>
                  <span className={`sev sev-${f.severity}`}>{f.severity}</span> {f.title}
                </td>
                <td>
                  <span className="muted">{f.kind} </span>
                  {href ? (
                    <Link className="mono" href={href}>
                      {f.name}
                    </Link>
                  ) : (
                    <span className="mono">{f.name}</span>
                  )}
                </td>
                <td className="mono">{f.path}</td>
                <td>
                  {f.managers[0]} ↔ {f.managers[1]}
                </td>
                <td>
                  {f.changes.length}
                  {last !== undefined ? `, last ${new Date(last).toISOString()}` : ""}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
