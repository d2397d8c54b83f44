import Link from "next/link";
import {
  objectPagePath,
  type AdmissionResource,
  type AccessVerb,
} from "@/lib/webhooks/resource-kinds";
import type { LiveStatus } from "@/components/live/use-live-collections";
import { DeleteButton } from "./delete-button";
import { kindOfResource } from "@/lib/admission/history/kinds";
import { timelineHref } from "@/components/history/links";
import { LiveIndicator } from "@/components/live/live-indicator";

/**
 * Edit / Duplicate / Delete for one admission object, each enabled by what the identity may do
 * (SelfSubjectAccessReview); the apiserver still decides every write.
 */
function ObjectActions({
  resource,
  name,
  kind,
  uid,
  resourceVersion,
  can,
}: {
  resource: AdmissionResource;
  name: string;
  kind: string;
  uid: string;
  resourceVersion: string;
  can: Record<AccessVerb, boolean> | undefined;
}) {
  const page = objectPagePath(resource, name);
  const section = objectPagePath(resource);
  const historyKind = kindOfResource(resource);
  return (
    <div className="actions">
      {historyKind ? (
        <Link className="button" href={timelineHref(historyKind, name)} data-testid="history-link">
          History
        </Link>
      ) : null}
      {can?.update ? (
        <Link className="button" href={`${page}/edit`}>
          Edit YAML
        </Link>
      ) : (
        <button type="button" disabled title={`you may not update ${kind}s`}>
          Edit YAML
        </button>
      )}
      {can?.create ? (
        <Link
          className="button"
          href={`${section}/new?from=${resource}/${encodeURIComponent(name)}`}
        >
          Duplicate
        </Link>
      ) : (
        <button type="button" disabled title={`you may not create ${kind}s`}>
          Duplicate
        </button>
      )}
      <DeleteButton
        resource={resource}
        name={name}
        uid={uid}
        resourceVersion={resourceVersion}
        enabled={!!can?.delete}
      />
    </div>
  );
}

/** The head of an object's detail page: kind, name, live state, version, actions, read-only note. */
export function ObjectHead({
  resource,
  name,
  kind,
  uid,
  resourceVersion,
  live,
  can,
}: {
  resource: AdmissionResource;
  name: string;
  kind: string;
  uid: string;
  resourceVersion: string;
  live: LiveStatus;
  /** Undefined while the access review is pending. */
  can: Record<AccessVerb, boolean> | undefined;
}) {
  return (
    <>
      <div className="page-head">
        <h1>
          <span className="muted">{kind}</span> <span className="mono">{name}</span>
        </h1>
        <LiveIndicator {...live} />
        <span className="muted mono">rv {resourceVersion}</span>
        <span className="spacer" />
        <ObjectActions
          resource={resource}
          name={name}
          kind={kind}
          uid={uid}
          resourceVersion={resourceVersion}
          can={can}
        />
      </div>
      {can && !can.update ? (
        <p className="hint" data-testid="read-only">
          Read-only: your identity may not change {kind}s.
        </p>
      ) : null}
    </>
  );
}
