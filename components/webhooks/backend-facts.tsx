import type { BackendView } from "@/lib/webhooks/backend-view";

/** Where the apiserver sends the hook's requests, and whether anything is there. */
export function BackendFacts({ backend }: { backend: BackendView | undefined }) {
  if (!backend) return <p className="muted">Reading the backend…</p>;
  if (backend.type === "none") return <p className="bad">No url or service in clientConfig.</p>;
  if (backend.type === "url")
    return (
      <dl className="facts">
        <dt>URL</dt>
        <dd className="mono">{backend.url}</dd>
        <dt>Host</dt>
        <dd className="mono">
          {backend.host}:{backend.port}
        </dd>
        <dt>Path</dt>
        <dd className="mono">{backend.path}</dd>
      </dl>
    );
  const b = backend;
  return (
    <dl className="facts">
      <dt>Service</dt>
      <dd className="mono">
        {b.namespace}/{b.name}:{b.port}
        {b.path ?? ""}{" "}
        {b.exists === true ? (
          <span className="badge ok">exists</span>
        ) : b.exists === false ? (
          <span className="badge bad-badge">not found</span>
        ) : null}
      </dd>
      {b.exists ? (
        <>
          <dt>Type</dt>
          <dd className="mono">
            {b.serviceType ?? "ClusterIP"}{" "}
            {b.serviceType === "ExternalName" ? (
              <span className="muted">
                called at {b.externalName ?? "(no name)"}:{b.port}: no Service port or endpoints are
                used
              </span>
            ) : b.clusterIP === "None" ? (
              <span className="muted">headless (ClusterIP None)</span>
            ) : b.clusterIP ? (
              <span className="muted">{b.clusterIP}</span>
            ) : null}
          </dd>
        </>
      ) : null}
      {b.exists && b.serviceType !== "ExternalName" ? (
        <>
          <dt>Ports</dt>
          <dd className="mono">
            {b.servicePorts
              .map(
                (p) =>
                  `${p.name ? p.name + " " : ""}${p.port}→${p.targetPort ?? p.port}/${p.protocol ?? "TCP"}`,
              )
              .join(", ") || "none"}{" "}
            {b.portServed === false ? (
              <span className="bad">port {b.port} is not served</span>
            ) : null}
          </dd>
          <dt>Endpoints</dt>
          <dd>
            <span className={b.endpoints.ready > 0 ? "good" : "bad"}>
              {b.endpoints.ready} ready
            </span>
            {b.endpoints.notReady > 0 ? `, ${b.endpoints.notReady} not ready` : ""}{" "}
            <span className="mono muted">{b.endpoints.addresses.slice(0, 6).join(", ")}</span>
          </dd>
        </>
      ) : null}
      {b.error ? (
        <>
          <dt>Error</dt>
          <dd className="bad">
            {b.error.status} {b.error.reason}: {b.error.message}
          </dd>
        </>
      ) : null}
    </dl>
  );
}
