"use client";

import dynamic from "next/dynamic";
import { useMemo, useState, type ReactNode } from "react";
import type { ConfigObject } from "@/lib/queries/webhooks";
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import type { PropagationNote } from "@/lib/webhooks/initializer-view";
import type { KindCollection, WebhookConfigs } from "@/components/webhooks/use-webhook-configs";
import { ErrorBox } from "@/components/ui/error-box";
import { DeleteButton } from "@/components/webhooks/delete-button";
// The editor (YAML, lib/admission's validator, the diff) loads only when one is opened.
const LegacyConfigEditor = dynamic(
  () => import("./config-editor").then((m) => m.LegacyConfigEditor),
  { ssr: false, loading: () => <p className="muted">Loading the editor…</p> },
);

/** What a page of a historical kind renders once discovery finds the kind served. */
export interface ServedLegacyKind {
  kind: KindCollection;
  /** The group/version the cluster serves it at. */
  apiVersion: string;
  /** Its configurations, sorted by name (bytes), as the apiserver merged them. */
  configs: ConfigObject[];
}

/**
 * The frame of a historical kind's page: heading, live state, "New configuration" with the
 * editor, errors, and the one line saying which Kubernetes versions served it when this cluster
 * does not.
 */
export function LegacyKindShell({
  title,
  resource,
  state,
  notServed,
  children,
}: {
  title: string;
  resource: LegacyResource;
  state: WebhookConfigs;
  notServed: string;
  children: (served: ServedLegacyKind) => ReactNode;
}) {
  const kind = state.kinds[0];
  const [creating, setCreating] = useState(false);
  const configs = useMemo(
    () =>
      ((kind?.items ?? []) as unknown as ConfigObject[]).slice().sort((a, b) => {
        const x = a.metadata?.name ?? "";
        const y = b.metadata?.name ?? "";
        return x < y ? -1 : x > y ? 1 : 0;
      }),
    [kind?.items],
  );
  const apiVersion = kind ? `${kind.ref.group}/${kind.ref.version}` : "";
  return (
    <div className="stack">
      <div className="page-head">
        <h1>{title}</h1>
        {kind ? (
          <span className="live" data-state={state.live}>
            {state.live}
          </span>
        ) : null}
        <span className="spacer" />
        {kind ? (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New configuration
          </button>
        ) : null}
      </div>
      {state.error ? <ErrorBox error={state.error} /> : null}
      {kind?.error ? <ErrorBox error={kind.error} /> : null}
      {!kind ? (
        <p className="muted">{state.loading ? "Reading discovery…" : notServed}</p>
      ) : (
        <>
          {creating ? (
            <LegacyConfigEditor
              resource={resource}
              apiVersion={apiVersion}
              onDone={() => setCreating(false)}
            />
          ) : null}
          {children({ kind, apiVersion, configs })}
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
        <button type="button" onClick={() => setEditing(true)}>
          Edit YAML
        </button>
        {actions}
        <DeleteButton
          resource={resource}
          name={name}
          uid={config.metadata?.uid ?? ""}
          resourceVersion={config.metadata?.resourceVersion ?? ""}
          enabled
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
