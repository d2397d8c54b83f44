"use client";

import { useState } from "react";
import { stringify } from "yaml";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import { pickFromCluster } from "@/lib/queries/predict";

const refOf = (d: DiscoveryResource) => `${d.group || "core"}/${d.version}/${d.resource}`;

/** Picks a stored object (as the tab's identity) to predict an UPDATE or DELETE of it. */
export function ObjectPicker({
  discovery,
  namespaces,
  onPick,
}: {
  discovery: readonly DiscoveryResource[];
  namespaces: readonly string[];
  onPick: (yamlText: string) => void;
}) {
  const [resource, setResource] = useState("core/v1/configmaps");
  const [namespace, setNamespace] = useState("default");
  const [names, setNames] = useState<string[] | undefined>(undefined);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const info = discovery.find((d) => refOf(d) === resource);
  const namespaced = info?.namespaced ?? true;

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const listNames = () =>
    run(async () => {
      const r = await pickFromCluster(resource, namespaced ? namespace : "", undefined);
      if (r.kind === "names") {
        setNames(r.names);
        setName(r.names[0] ?? "");
      }
    });
  const load = () =>
    run(async () => {
      const r = await pickFromCluster(resource, namespaced ? namespace : "", name);
      if (r.kind === "object") onPick(stringify(r.object));
    });

  return (
    <details className="picker">
      <summary>Pick an object from the cluster</summary>
      <div className="form-row">
        <label htmlFor="pick-resource">Resource</label>
        <input
          id="pick-resource"
          className="mono"
          list="pick-resource-list"
          value={resource}
          onChange={(e) => {
            setResource(e.target.value);
            setNames(undefined);
          }}
        />
        <datalist id="pick-resource-list">
          {discovery
            .filter((d) => !d.group.endsWith("admissionregistration.k8s.io"))
            .map((d) => (
              <option key={refOf(d)} value={refOf(d)} />
            ))}
        </datalist>
        {namespaced ? (
          <>
            <label htmlFor="pick-namespace">Namespace</label>
            <select
              id="pick-namespace"
              value={namespace}
              onChange={(e) => {
                setNamespace(e.target.value);
                setNames(undefined);
              }}
            >
              {namespaces.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </>
        ) : null}
        <button type="button" className="button" disabled={busy} onClick={listNames}>
          List
        </button>
      </div>
      {names ? (
        <div className="form-row">
          <label htmlFor="pick-name">Name</label>
          <select id="pick-name" value={name} onChange={(e) => setName(e.target.value)}>
            {names.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
          <button type="button" className="button" disabled={busy || !name} onClick={load}>
            Use it
          </button>
          {names.length === 0 ? <span className="hint">none there</span> : null}
        </div>
      ) : null}
      {error ? (
        <p className="bad" role="alert">
          {error}
        </p>
      ) : null}
    </details>
  );
}
