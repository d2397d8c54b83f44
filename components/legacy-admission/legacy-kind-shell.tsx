"use client";

import dynamic from "next/dynamic";
import { useMemo, useState, type ReactNode } from "react";
import type { ConfigObject } from "@/lib/api/webhooks";
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import type { PropagationNote } from "@/lib/webhooks/initializer-view";
import type { KindCollection, WebhookConfigs } from "@/components/webhooks/use-webhook-configs";
import { ErrorBox } from "@/components/ui/error-box";
import { DeleteButton } from "@/components/webhooks/delete-button";
import { useLegacyAccess } from "./use-legacy-access";
import { LiveIndicator } from "@/components/live/live-indicator";
// The editor (YAML, lib/admission's validator, the diff) loads only when one is opened.
const LegacyConfigEditor = dynamic(
  () => import("./config-editor").then((m) => m.LegacyConfigEditor),
  { ssr: false, loading: () => <p className="muted">Loading the editor…</p> },
);

/** What a page of a historical kind renders once discovery finds the kind served. */
export interface ServedLegacyKind {
  kind: KindCollection;
  /** The dashboard's route key of the kind. */
  resource: LegacyResource;
  /** The group/version the cluster serves it at. */
  apiVersion: string;
  /** Its configurations, sorted by name (bytes), as the apiserver merged them. */
  configs: ConfigObject[];
}

function sortedConfigs(kind: KindCollection | undefined): ConfigObject[] {
  return ((kind?.items ?? []) as unknown as ConfigObject[]).slice().sort((a, b) => {
    const x = a.metadata?.name ?? "";
    const y = b.metadata?.name ?? "";
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** The button that opens the editor for a new configuration of one kind, if RBAC allows it. */
function NewButton({
  resource,
  label,
  onClick,
}: {
  resource: LegacyResource;
  label: string;
  onClick: () => void;
}) {
  const access = useLegacyAccess(resource);
  return (
    <button
      type="button"
      className="primary"
      disabled={!access.can("create")}
      title={access.reason("create")}
      onClick={onClick}
    >
      {label}
    </button>
  );
}

/** The one line saying the identity may only read this kind (from its access review). */
function ReadOnlyLine({ resource, label }: { resource: LegacyResource; label: string }) {
  const access = useLegacyAccess(resource);
  return access.readOnly ? (
    <p className="hint" data-testid={`read-only-${resource}`}>
      Read-only: your identity may not create, change or delete {label} (SelfSubjectAccessReview).
    </p>
  ) : null;
}

/**
 * Where the page's data comes from when it is not admissionregistration.k8s.io: the historical
 * kind is served as custom resources in the legacy group (PORTCULLIS_LEGACY_ADMISSION_GROUP),
 * as the local control plane of the demo and the tests serves it. Nothing on a cluster calls
 * what is stored there.
 */
function LegacyGroupLabel({ served }: { served: ServedLegacyKind }) {
  const group = served.kind.ref.group;
  if (group === ADMISSION_GROUP) return null;
  return (
    <span
      className="badge"
      data-testid="legacy-group-label"
      title={`This apiserver does not serve ${served.kind.kind}: the objects are custom resources in ${group}, the legacy group the dashboard is configured with (PORTCULLIS_LEGACY_ADMISSION_GROUP). They are stored for review and editing; no admission plugin reads them.`}
    >
      historical API · served locally from the legacy group <span className="mono">{group}</span>
    </span>
  );
}

/**
 * The frame of a historical kind's page: heading, live state, "New configuration" with the
 * editor (one button per kind when the page shows several), a read-only line when RBAC allows
 * no write, errors, and the one line saying which Kubernetes versions served the kind when this
 * cluster does not. `state.kinds` are the served kinds the page shows, in page order.
 */
export function LegacyKindShell({
  title,
  resource,
  state,
  notServed,
  children,
}: {
  title: string;
  /** The page's kind, or its kinds (a served kind's route key is `kind.resource`). */
  resource: LegacyResource | readonly LegacyResource[];
  state: WebhookConfigs;
  notServed: string;
  children: (served: ServedLegacyKind, all: ServedLegacyKind[]) => ReactNode;
}) {
  const resourcesKey = typeof resource === "string" ? resource : resource.join(",");
  const [creating, setCreating] = useState<LegacyResource | undefined>(undefined);
  const all = useMemo(() => {
    const resources = resourcesKey.split(",") as LegacyResource[];
    return state.kinds.flatMap((kind, i): ServedLegacyKind[] => {
      const r = (
        resources.length === 1 ? resources[0] : resources.find((x) => x === kind.resource)
      ) as LegacyResource | undefined;
      if (!r || (resources.length === 1 && i > 0)) return [];
      return [
        {
          kind,
          resource: r,
          apiVersion: `${kind.ref.group}/${kind.ref.version}`,
          configs: sortedConfigs(kind),
        },
      ];
    });
  }, [state.kinds, resourcesKey]);
  const first = all[0];
  const creatingKind = all.find((k) => k.resource === creating);
  return (
    <div className="stack">
      <div className="page-head">
        <h1>{title}</h1>
        {first ? <LiveIndicator {...state.live} /> : null}
        {first ? <LegacyGroupLabel served={first} /> : null}
        <span className="spacer" />
        {all.map((k) => (
          <NewButton
            key={k.resource}
            resource={k.resource}
            label={all.length > 1 ? `New ${k.kind.kind}` : "New configuration"}
            onClick={() => setCreating(k.resource)}
          />
        ))}
      </div>
      {state.error ? <ErrorBox error={state.error} /> : null}
      {all.map((k) => (k.kind.error ? <ErrorBox key={k.resource} error={k.kind.error} /> : null))}
      {all.map((k) => (
        <ReadOnlyLine
          key={k.resource}
          resource={k.resource}
          label={`${k.kind.kind} (${k.apiVersion})`}
        />
      ))}
      {!first ? (
        <p className="muted">{state.loading ? "Reading discovery…" : notServed}</p>
      ) : (
        <>
          {creatingKind ? (
            <LegacyConfigEditor
              resource={creatingKind.resource}
              apiVersion={creatingKind.apiVersion}
              onDone={() => setCreating(undefined)}
            />
          ) : null}
          {children(first, all)}
        </>
      )}
    </div>
  );
}

/** When the object was last written, from its managed fields (else its creation). */
function lastChanged(c: ConfigObject): string | undefined {
  const times = (
    Array.isArray(c.metadata?.managedFields) ? (c.metadata.managedFields as unknown[]) : []
  )
    .map((m) => (m && typeof m === "object" ? (m as { time?: unknown }).time : undefined))
    .filter((t): t is string => typeof t === "string");
  const created = c.metadata?.creationTimestamp;
  if (typeof created === "string") times.push(created);
  return times.sort().at(-1)?.replace("T", " ").replace("Z", " UTC");
}

/**
 * One configuration of a historical kind: its name, resourceVersion and last change, Edit YAML
 * (the editor opens below), the kind's own actions, and delete with typed confirmation.
 */
export function LegacyConfigSection({
  resource,
  config,
  apiVersion,
  actions,
  children,
}: {
  resource: LegacyResource;
  config: ConfigObject;
  apiVersion: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const [editing, setEditing] = useState(false);
  const access = useLegacyAccess(resource);
  const name = config.metadata?.name ?? "";
  const changed = lastChanged(config);
  return (
    <section className="panel" aria-label={`Configuration ${name}`} data-testid={`config-${name}`}>
      <div className="config-head">
        <h2 className="mono">{name}</h2>
        <span className="hint">
          resourceVersion {config.metadata?.resourceVersion}
          {changed ? ` · last changed ${changed}` : ""}
        </span>
        <span className="spacer" />
        <button
          type="button"
          disabled={!access.can("update")}
          title={access.reason("update")}
          onClick={() => setEditing(true)}
        >
          Edit YAML
        </button>
        {actions}
        <DeleteButton
          resource={resource}
          name={name}
          uid={config.metadata?.uid ?? ""}
          resourceVersion={config.metadata?.resourceVersion ?? ""}
          enabled={access.can("delete")}
          disabledReason={access.reason("delete")}
          onDeleted={() => undefined}
        />
      </div>
      {children}
      {editing ? (
        <LegacyConfigEditor
          resource={resource}
          apiVersion={apiVersion}
          stored={config}
          onDone={() => setEditing(false)}
        />
      ) : null}
    </section>
  );
}

/** How a configuration change reaches requests, per API version that serves the kind. */
export function PropagationTable({
  notes,
  group,
}: {
  notes: readonly PropagationNote[];
  /** The group this cluster serves the kind in (custom resources when not the real one). */
  group: string;
}) {
  return (
    <table className="data" aria-label="Configuration propagation per served API version">
      <thead>
        <tr>
          <th scope="col">Served by</th>
          <th scope="col">How a change reaches requests</th>
        </tr>
      </thead>
      <tbody>
        {notes
          .filter((p) => !p.customResourcesOnly || group !== ADMISSION_GROUP)
          .map((p) => (
            <tr key={p.servedBy}>
              <td>{p.servedBy}</td>
              <td>{p.text}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}
