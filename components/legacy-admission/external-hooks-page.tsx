"use client";

import { useMemo, useState } from "react";
import type { ConfigObject } from "@/lib/queries/webhooks";
import type { V1RuleWithOperations } from "@/lib/k8s/types";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { explainRule } from "@/lib/webhooks/explain";
import { PROPAGATION } from "@/lib/webhooks/initializer-view";
import { ErrorBox } from "@/components/ui/error-box";
import { DeleteButton } from "@/components/webhooks/delete-button";
import { LegacyConfigEditor } from "./config-editor";
import { useExternalHookConfigs } from "./use-legacy-configs";

interface ExternalHook {
  name?: string;
  clientConfig?: { service?: { namespace?: string; name?: string }; caBundle?: string };
  rules?: V1RuleWithOperations[];
  failurePolicy?: string;
}

function hooksOf(c: ConfigObject): ExternalHook[] {
  const v = c["externalAdmissionHooks"];
  return Array.isArray(v) ? (v as ExternalHook[]) : [];
}

/**
 * ExternalAdmissionHookConfiguration (1.7–1.8), where discovery finds it served: every hook with
 * its rules in words, failure policy (default Ignore shown), backend Service; edit, create,
 * delete. Hooks were validating only and called in parallel, so there is no order to change.
 */
export function ExternalHooksPage() {
  const state = useExternalHookConfigs();
  const kind = state.kinds[0];
  const configs = useMemo(
    () =>
      ((kind?.items ?? []) as unknown as ConfigObject[])
        .slice()
        .sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1)),
    [kind?.items],
  );
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [creating, setCreating] = useState(false);
  const apiVersion = kind ? `${kind.ref.group}/${kind.ref.version}` : "";
  return (
    <div className="stack">
      <div className="page-head">
        <h1>External admission hooks</h1>
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
            : "This cluster does not serve ExternalAdmissionHookConfiguration: Kubernetes 1.7–1.8 served it (admissionregistration.k8s.io/v1alpha1); 1.9 replaced it with webhook configurations."}
        </p>
      ) : (
        <>
          <p className="hint">
            Served at <span className="mono">{apiVersion}</span>. The GenericAdmissionWebhook plugin
            called every matching hook in parallel and failed on the first denial; in 1.7 every call
            error failed open, whatever failurePolicy said.
          </p>
          {creating ? (
            <LegacyConfigEditor
              resource="externaladmissionhookconfigurations"
              apiVersion={apiVersion}
              onDone={() => setCreating(false)}
            />
          ) : null}
          {configs.length === 0 ? <p className="muted">No configurations.</p> : null}
          {configs.map((c) => {
            const name = c.metadata?.name ?? "";
            return (
              <section
                key={name}
                className="panel"
                aria-label={`Configuration ${name}`}
                data-testid={`config-${name}`}
              >
                <div className="config-head">
                  <h2 className="mono">{name}</h2>
                  <span className="hint">resourceVersion {c.metadata?.resourceVersion}</span>
                  <span className="spacer" />
                  <button type="button" onClick={() => setEditing(name)}>
                    Edit YAML
                  </button>
                  <DeleteButton
                    resource="externaladmissionhookconfigurations"
                    name={name}
                    uid={c.metadata?.uid ?? ""}
                    resourceVersion={c.metadata?.resourceVersion ?? ""}
                    enabled
                    onDeleted={() => undefined}
                  />
                </div>
                <table className="data" aria-label={`Hooks of ${name}`}>
                  <thead>
                    <tr>
                      <th scope="col">Hook</th>
                      <th scope="col">Failure policy</th>
                      <th scope="col">Backend</th>
                      <th scope="col">Rules</th>
                    </tr>
                  </thead>
                  <tbody>
                    {hooksOf(c).map((h, i) => (
                      <tr key={i} data-testid={`hook-row-${h.name ?? i}`}>
                        <td className="mono">{h.name}</td>
                        <td>
                          {h.failurePolicy ?? (
                            <span>
                              Ignore <span className="dflt">default</span>
                            </span>
                          )}
                        </td>
                        <td className="mono">
                          svc {h.clientConfig?.service?.namespace}/{h.clientConfig?.service?.name}
                        </td>
                        <td>
                          {(h.rules ?? []).map((r, j) => (
                            <div key={j}>{explainRule(r)}</div>
                          ))}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {editing === name ? (
                  <LegacyConfigEditor
                    resource="externaladmissionhookconfigurations"
                    apiVersion={apiVersion}
                    stored={c}
                    onDone={() => setEditing(undefined)}
                  />
                ) : null}
              </section>
            );
          })}
          <section className="panel" aria-labelledby="prop-h">
            <h2 id="prop-h">Configuration propagation</h2>
            <table className="data" aria-label="Configuration propagation per served API version">
              <tbody>
                {PROPAGATION.externalAdmissionHooks.map((p) => (
                  <tr key={p.servedBy}>
                    <td>{p.servedBy}</td>
                    <td>{p.text}</td>
                  </tr>
                ))}
                {kind.ref.group !== ADMISSION_GROUP ? (
                  <tr>
                    <td>this cluster (custom resources)</td>
                    <td>
                      Served here as custom resources for review and editing: no apiserver plugin
                      calls these hooks.
                    </td>
                  </tr>
                ) : null}
              </tbody>
            </table>
          </section>
        </>
      )}
    </div>
  );
}
