"use client";

import type { ConfigObject } from "@/lib/api/webhooks";
import type { V1RuleWithOperations } from "@/lib/k8s/types";
import { explainRule } from "@/lib/webhooks/explain";
import { PROPAGATION } from "@/lib/webhooks/initializer-view";
import { LegacyConfigSection, LegacyKindShell, PropagationTable } from "./legacy-kind-shell";
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
  return (
    <LegacyKindShell
      title="External admission hooks"
      resource="externaladmissionhookconfigurations"
      state={state}
      notServed="This cluster does not serve ExternalAdmissionHookConfiguration: Kubernetes 1.7–1.8 served it (admissionregistration.k8s.io/v1alpha1); 1.9 replaced it with webhook configurations."
    >
      {({ kind, apiVersion, configs }) => (
        <>
          <p className="hint">
            Served at <span className="mono">{apiVersion}</span>. The GenericAdmissionWebhook plugin
            called every matching hook in parallel and failed on the first denial; in 1.7 every call
            error failed open, whatever failurePolicy said.
          </p>
          {configs.length === 0 ? <p className="muted">No configurations.</p> : null}
          {configs.map((c) => (
            <LegacyConfigSection
              key={c.metadata?.name}
              resource="externaladmissionhookconfigurations"
              config={c}
              apiVersion={apiVersion}
            >
              <HookTable config={c} />
            </LegacyConfigSection>
          ))}
          <section className="panel" aria-labelledby="prop-h">
            <h2 id="prop-h">Configuration propagation</h2>
            <PropagationTable notes={PROPAGATION.externalAdmissionHooks} group={kind.ref.group} />
          </section>
        </>
      )}
    </LegacyKindShell>
  );
}

function HookTable({ config }: { config: ConfigObject }) {
  const name = config.metadata?.name ?? "";
  return (
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
        {hooksOf(config).map((h, i) => (
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
  );
}
