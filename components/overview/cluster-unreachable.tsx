import type { ApiError } from "@/lib/api/client";
import { isNoAnswer } from "@/lib/k8s/errors";

/** What went wrong reaching the cluster, and what to check, in plain words. */
export function ClusterUnreachable({ error, context }: { error: ApiError; context?: string }) {
  const refused = error.status === 401 || error.status === 403;
  const noConfig = error.reason === "NoKubeconfig";
  return (
    <section className="alert" role="alert" aria-label="Cluster error">
      <h2>
        {noConfig
          ? "No kubeconfig"
          : refused
            ? "The cluster refused the credentials"
            : "Cannot reach the cluster"}
      </h2>
      <dl className="facts">
        {error.cluster ? (
          <>
            <dt>Server</dt>
            <dd className="mono">{error.cluster}</dd>
          </>
        ) : null}
        {context ? (
          <>
            <dt>Context</dt>
            <dd className="mono">{context}</dd>
          </>
        ) : null}
        <dt>Error</dt>
        <dd>
          <span className="badge">{error.status || "—"}</span>
          <span className="badge">{error.reason}</span> {error.message}
        </dd>
      </dl>
      <ul>
        {noConfig ? (
          <li>
            Start the local cluster with <code>npm run cluster</code>, or set{" "}
            <code>KUBECONFIG</code> to your cluster&apos;s kubeconfig.
          </li>
        ) : refused ? (
          <>
            <li>
              Check that the user of context <code>{context}</code> has a valid token or
              certificate.
            </li>
            <li>
              {error.status === 403
                ? "The user is known but lacks permission: check its RBAC bindings."
                : "The token may have expired or been revoked."}
            </li>
          </>
        ) : (
          <>
            <li>
              Is the apiserver running? For the built-in cluster: <code>npm run cluster</code>.
            </li>
            <li>
              Is the server URL in the kubeconfig right, and reachable from the dashboard&apos;s
              host?
            </li>
            <li>
              Does the kubeconfig&apos;s certificate-authority match the server&apos;s certificate?
            </li>
            {isNoAnswer(error) ? (
              <li>This page asks again by itself, and fills in once the cluster answers.</li>
            ) : null}
          </>
        )}
      </ul>
    </section>
  );
}
