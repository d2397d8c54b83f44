"use client";

import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { useQuery } from "@tanstack/react-query";
import type { ServedKind } from "@/lib/k8s/served-kinds";
import type { ResourceRef } from "@/lib/k8s/resources";
import { collectionQuery } from "@/lib/queries/collections";
import { useLiveCollections } from "@/components/live/use-live-collections";
import { LiveIndicator } from "@/components/live/live-indicator";

function CountCell({ context, ref_ }: { context: string; ref_: ResourceRef }) {
  const { data, error } = useQuery(collectionQuery(context, ref_));
  if (error)
    return (
      <span className="muted" title={error.message}>
        {error.message.includes("forbidden") ? "forbidden" : "error"}
      </span>
    );
  return <>{data ? data.items.length : "…"}</>;
}

/** Each configuration kind: served versions, live object count, history. */
export function KindCountsTable({ context, kinds }: { context: string; kinds: ServedKind[] }) {
  const refs = kinds.flatMap((k) => (k.readAt ? [k.readAt] : []));
  const live = useLiveCollections(context, refs);
  return (
    <section className="panel" aria-labelledby="kinds-h">
      <h2 id="kinds-h">
        Configuration kinds <LiveIndicator {...live} />
      </h2>
      <table className="data">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Served versions</th>
            <th scope="col" className="num">
              Objects
            </th>
            <th scope="col">History</th>
          </tr>
        </thead>
        <tbody>
          {kinds.map((k) => (
            <tr key={k.known.resource} data-kind={k.known.kind}>
              <td>{k.known.kind}</td>
              <td>
                {k.served.length > 0 ? (
                  k.served.map((v) => (
                    <span key={v} className="badge ok">
                      {v}
                    </span>
                  ))
                ) : (
                  <span className="badge off">not served</span>
                )}
                {k.readAt && k.readAt.group !== ADMISSION_GROUP ? (
                  <span className="hint"> in {k.readAt.group}</span>
                ) : null}
              </td>
              <td className="num" data-testid={`count-${k.known.resource}`}>
                {k.readAt ? <CountCell context={context} ref_={k.readAt} /> : "—"}
              </td>
              <td className="muted">{k.known.history}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint" data-testid="legacy-kinds-line">
        InitializerConfiguration was served by Kubernetes 1.7–1.13,
        ExternalAdmissionHookConfiguration by 1.7–1.8 and v1beta1 webhook configurations by
        1.9–1.21; their pages appear in the navigation only where this cluster serves them.
      </p>
    </section>
  );
}
