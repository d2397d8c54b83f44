"use client";

import { useMemo, useState } from "react";
import { initializerOrder, pendingFor } from "@/lib/admission/historical/initializers";
import type { InitializerConfiguration } from "@/lib/admission/model/snapshot";
import {
  explainInitializerRule,
  INITIALIZER_FAILURE_NOTE,
  PROPAGATION,
} from "@/lib/webhooks/initializer-view";
import { ReorderList } from "@/components/order/reorder-list";
import { RenameForm } from "@/components/order/rename-form";
import {
  LegacyConfigSection,
  LegacyKindShell,
  PropagationTable,
  type ServedLegacyKind,
} from "./legacy-kind-shell";
import { useInitializerConfigs } from "./use-legacy-configs";
import { useLegacyAccess } from "./use-legacy-access";
import { UninitializedObjects } from "./uninitialized-objects";

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
  return (
    <LegacyKindShell
      title="Initializers"
      resource="initializerconfigurations"
      state={state}
      notServed="This cluster does not serve InitializerConfiguration: Kubernetes 1.7–1.13 served it (admissionregistration.k8s.io/v1alpha1, alpha, removed in 1.14)."
    >
      {(served) => <ServedInitializers {...served} />}
    </LegacyKindShell>
  );
}

function ServedInitializers({ kind, apiVersion, configs }: ServedLegacyKind) {
  const access = useLegacyAccess("initializerconfigurations");
  const typed = configs as unknown as InitializerConfiguration[];
  const order = useMemo(() => initializerOrder(typed), [typed]);
  const [renameLog, setRenameLog] = useState<string | undefined>(undefined);
  const names = configs.map((c) => c.metadata?.name ?? "");
  return (
    <>
      <p className="hint">
        Served at <span className="mono">{apiVersion}</span>. Kubernetes 1.7–1.13 merge every
        configuration, sorted by name, initializers in order within each, into the{" "}
        <span className="mono">metadata.initializers.pending</span> list of each new object they
        match.
      </p>
      <section className="panel" aria-labelledby="order-h">
        <h2 id="order-h">
          Merged order ({order.length} {order.length === 1 ? "initializer" : "initializers"})
        </h2>
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
          <LegacyConfigSection
            key={name}
            resource="initializerconfigurations"
            config={c}
            apiVersion={apiVersion}
            actions={
              <RenameForm
                resource="initializerconfigurations"
                name={name}
                resourceVersion={c.metadata?.resourceVersion ?? ""}
                names={names}
                canRename={access.can("create") && access.can("delete")}
                disabledReason={access.reason("create") ?? access.reason("delete")}
                onResult={(r) =>
                  setRenameLog(
                    r.ok
                      ? `Renamed ${r.from} to ${r.to}: its initializers moved in the merged order.`
                      : `Rename of ${r.from} failed: ${r.error?.message ?? ""}`,
                  )
                }
              />
            }
          >
            <ReorderList
              resource="initializerconfigurations"
              hooksField="initializers"
              config={c}
              canUpdate={access.can("update")}
              firstIndex={first < 0 ? 0 : first}
            />
          </LegacyConfigSection>
        );
      })}
      <section className="panel" aria-labelledby="fail-h">
        <h2 id="fail-h">Failure and propagation</h2>
        <p>{INITIALIZER_FAILURE_NOTE}</p>
        <PropagationTable notes={PROPAGATION.initializers} group={kind.ref.group} />
      </section>
      <UninitializedObjects />
    </>
  );
}
