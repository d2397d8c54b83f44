"use client";

import { useMemo, useState } from "react";
import { initializerOrder, pendingFor } from "@/lib/admission/initializers";
import type { InitializerConfiguration } from "@/lib/admission/snapshot";
import {
  explainInitializerRule,
  INITIALIZER_FAILURE_NOTE,
  PROPAGATION,
} from "@/lib/webhooks/initializer-view";
import type { ConfigObject } from "@/lib/queries/webhooks";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { ErrorBox } from "@/components/ui/error-box";
import { ReorderList } from "@/components/order/reorder-list";
import { RenameForm } from "@/components/order/rename-form";
import { DeleteButton } from "@/components/webhooks/delete-button";
import { LegacyConfigEditor } from "./config-editor";
import { useInitializerConfigs } from "./use-legacy-configs";

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

/** The pending list a new object of a chosen resource gets. */
function PendingPreview({ configs }: { configs: InitializerConfiguration[] }) {
  const [group, setGroup] = useState("");
  const [version, setVersion] = useState("v1");
  const [resource, setResource] = useState("pods");
  const r = pendingFor(configs, { group, version, resource: resource.trim() });
  return (
    <section className="panel" aria-labelledby="pending-h">
      <h2 id="pending-h">What a new object gets</h2>
      <div className="toolbar">
        <label>
          Group <input value={group} onChange={(e) => setGroup(e.target.value.trim())} size={14} />
        </label>
        <label>
          Version{" "}
          <input value={version} onChange={(e) => setVersion(e.target.value.trim())} size={8} />
        </label>
        <label>
          Resource{" "}
          <input value={resource} onChange={(e) => setResource(e.target.value)} size={16} />
        </label>
      </div>
      <p>
        <span className="mono">metadata.initializers.pending</span> on create:{" "}
        {r.pending.length === 0 ? (
          <span className="muted" data-testid="pending-list">
            none — the object is visible at once
          </span>
        ) : (
          <span className="mono" data-testid="pending-list">
            {r.pending.join(" → ")}
          </span>
        )}
      </p>
      <p className="hint">
        Strictly serial: only the head of the list acts, then removes its own name. A creator with
        the <span className="mono">initialize</span> verb may set the list itself (an empty list
        skips initialization); mirror pods are exempt.
      </p>
    </section>
  );
}

/**
 * InitializerConfiguration (1.7–1.13), where discovery finds it served: the merged order with
 * one row per initializer, the pending list a new object gets, each configuration with its
 * initializers (reorder, safe rename, edit, delete), live from the watch.
 */
export function InitializersPage() {
  const state = useInitializerConfigs();
  const kind = state.kinds[0];
  const configs = useMemo(
    () =>
      ((kind?.items ?? []) as unknown as ConfigObject[])
        .slice()
        .sort((a, b) =>
          (a.metadata?.name ?? "") < (b.metadata?.name ?? "")
            ? -1
            : (a.metadata?.name ?? "") > (b.metadata?.name ?? "")
              ? 1
              : 0,
        ),
    [kind?.items],
  );
  const typed = configs as unknown as InitializerConfiguration[];
  const order = useMemo(() => initializerOrder(typed), [typed]);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [creating, setCreating] = useState(false);
  const [renameLog, setRenameLog] = useState<string | undefined>(undefined);
  const apiVersion = kind ? `${kind.ref.group}/${kind.ref.version}` : "";
  const names = configs.map((c) => c.metadata?.name ?? "");

  return (
    <div className="stack">
      <div className="page-head">
        <h1>Initializers</h1>
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
        <p className="muted">
          {state.loading
            ? "Reading discovery…"
            : "This cluster does not serve InitializerConfiguration: Kubernetes 1.7–1.13 served it (admissionregistration.k8s.io/v1alpha1, alpha, removed in 1.14)."}
        </p>
      ) : (
        <>
          <p className="hint">
            Served at <span className="mono">{apiVersion}</span>. Kubernetes 1.7–1.13 merge every
            configuration, sorted by name, initializers in order within each, into the{" "}
            <span className="mono">metadata.initializers.pending</span> list of each new object they
            match.
          </p>
          {creating ? (
            <LegacyConfigEditor
              resource="initializerconfigurations"
              apiVersion={apiVersion}
              onDone={() => setCreating(false)}
            />
          ) : null}
          <section className="panel" aria-labelledby="order-h">
            <h2 id="order-h">Merged order ({order.length} initializers)</h2>
            {order.length === 0 ? (
              <p className="muted">No initializers: new objects are visible at once.</p>
            ) : (
              <table className="data" aria-label="Initializers in merged order">
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Initializer</th>
                    <th scope="col">Configuration</th>
                    <th scope="col">Applies to</th>
                  </tr>
                </thead>
                <tbody>
                  {order.map((e) => (
                    <tr key={`${e.configuration}/${e.position}`} data-testid={`init-row-${e.name}`}>
                      <td className="num">{e.order + 1}</td>
                      <td className="mono">{e.name}</td>
                      <td className="mono">
                        {e.configuration} <span className="muted">#{e.position + 1}</span>
                      </td>
                      <td>
                        {e.rules.length === 0 ? (
                          <span className="muted">no rules: never added</span>
                        ) : (
                          e.rules.map((r, i) => <div key={i}>{explainInitializerRule(r)}</div>)
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <PendingPreview configs={typed} />
          {renameLog ? (
            <p role="status" className="notice">
              {renameLog}
            </p>
          ) : null}
          {configs.map((c) => {
            const name = c.metadata?.name ?? "";
            const first = order.findIndex((e) => e.configuration === name);
            return (
              <section
                key={name}
                className="panel"
                aria-label={`Configuration ${name}`}
                data-testid={`config-${name}`}
              >
                <div className="config-head">
                  <h2 className="mono">{name}</h2>
                  <span className="hint">
                    resourceVersion {c.metadata?.resourceVersion}
                    {lastChanged(c) ? ` · last changed ${lastChanged(c)}` : ""}
                  </span>
                  <span className="spacer" />
                  <button type="button" onClick={() => setEditing(name)}>
                    Edit YAML
                  </button>
                  <RenameForm
                    resource="initializerconfigurations"
                    name={name}
                    resourceVersion={c.metadata?.resourceVersion ?? ""}
                    names={names}
                    canRename
                    onResult={(r) =>
                      setRenameLog(
                        r.ok
                          ? `Renamed ${r.from} to ${r.to}: its initializers moved in the merged order.`
                          : `Rename of ${r.from} failed: ${r.error?.message ?? ""}`,
                      )
                    }
                  />
                  <DeleteButton
                    resource="initializerconfigurations"
                    name={name}
                    uid={c.metadata?.uid ?? ""}
                    resourceVersion={c.metadata?.resourceVersion ?? ""}
                    enabled
                    onDeleted={() => undefined}
                  />
                </div>
                <ReorderList
                  resource="initializerconfigurations"
                  hooksField="initializers"
                  config={c}
                  canUpdate
                  firstIndex={first < 0 ? 0 : first}
                />
                {editing === name ? (
                  <LegacyConfigEditor
                    resource="initializerconfigurations"
                    apiVersion={apiVersion}
                    stored={c}
                    onDone={() => setEditing(undefined)}
                  />
                ) : null}
              </section>
            );
          })}
          <section className="panel" aria-labelledby="fail-h">
            <h2 id="fail-h">Failure and propagation</h2>
            <p>{INITIALIZER_FAILURE_NOTE}</p>
            <table className="data" aria-label="Configuration propagation per served API version">
              <thead>
                <tr>
                  <th scope="col">Served by</th>
                  <th scope="col">How a change reaches requests</th>
                </tr>
              </thead>
              <tbody>
                {PROPAGATION.initializers
                  .filter((p) => !p.customResourcesOnly || kind.ref.group !== ADMISSION_GROUP)
                  .map((p) => (
                    <tr key={p.servedBy}>
                      <td>{p.servedBy}</td>
                      <td>{p.text}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
            <p className="hint">
              Uninitialized objects (<span className="mono">?includeUninitialized=true</span>) are
              not shown: only 1.7–1.13 apiservers hold them, and custom resources cannot model them.
            </p>
          </section>
        </>
      )}
    </div>
  );
}
