"use client";

import { useMemo, useState } from "react";
import type { ConfigObject } from "@/lib/api/webhooks";
import { legacyOrder, v1beta1Settings } from "@/lib/admission/historical/legacy-order";
import type { V1beta1WebhookConfiguration } from "@/lib/admission/model/snapshot";
import type { V1RuleWithOperations } from "@/lib/k8s/types";
import { explainRule } from "@/lib/webhooks/explain";
import { PROPAGATION } from "@/lib/webhooks/initializer-view";
import { ReorderList } from "@/components/order/reorder-list";
import { RenameForm } from "@/components/order/rename-form";
import {
  LegacyConfigSection,
  LegacyKindShell,
  PropagationTable,
  type ServedLegacyKind,
} from "./legacy-kind-shell";
import { useV1beta1HookConfigs } from "./use-legacy-configs";
import { useLegacyAccess } from "./use-legacy-access";
import { LegacyOrderSections } from "./legacy-order-sections";
import { V1BETA1_HOOK_RESOURCES } from "@/lib/k8s/legacy-kinds";

interface Hook {
  name?: string;
  rules?: V1RuleWithOperations[];
  [k: string]: unknown;
}

function hooksOf(c: ConfigObject): Hook[] {
  const v = c["webhooks"];
  return Array.isArray(v) ? (v as Hook[]) : [];
}

/** One hook's effective settings: its value (or the v1beta1 default) beside v1's default. */
function SettingsTable({ hook, mutating }: { hook: Hook; mutating: boolean }) {
  const rows = v1beta1Settings(hook, mutating);
  return (
    <table className="data" aria-label={`Settings of ${hook.name ?? ""}`}>
      <thead>
        <tr>
          <th scope="col">Setting</th>
          <th scope="col">Effective (v1beta1)</th>
          <th scope="col">v1 default</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.field} data-testid={`setting-${hook.name ?? ""}-${r.field}`}>
            <th scope="row" className="mono">
              {r.field}
            </th>
            <td>
              <span className="mono">{r.value}</span>{" "}
              {r.defaulted ? <span className="dflt">v1beta1 default</span> : null}
            </td>
            <td>
              <span className="mono">{r.v1Default}</span>
              {r.defaulted && r.differsFromV1 ? (
                <span className="warn"> — differs: the same hook under v1 behaves otherwise</span>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function HookDetails({ config, mutating }: { config: ConfigObject; mutating: boolean }) {
  return (
    <div className="stack">
      {hooksOf(config).map((h, i) => (
        <details key={i} data-testid={`v1beta1-hook-${h.name ?? i}`}>
          <summary>
            <span className="mono">{h.name}</span>{" "}
            <span className="hint">
              {(h.rules ?? []).map((r) => explainRule(r)).join("; ") || "no rules: never called"}
            </span>
          </summary>
          <SettingsTable hook={h} mutating={mutating} />
        </details>
      ))}
    </div>
  );
}

function KindSection({
  served,
  onRename,
}: {
  served: ServedLegacyKind;
  onRename: (s: string) => void;
}) {
  const { resource, configs, apiVersion, kind } = served;
  const access = useLegacyAccess(resource);
  const mutating = kind.kind === "MutatingWebhookConfiguration";
  const names = configs.map((c) => c.metadata?.name ?? "");
  // Where each configuration's first hook sits in the kind's merged order.
  const starts = configs.map((_, i) =>
    configs.slice(0, i).reduce((n, c) => n + hooksOf(c).length, 0),
  );
  return (
    <section className="panel" aria-labelledby={`${resource}-h`}>
      <h2 id={`${resource}-h`}>
        {mutating ? "Mutating" : "Validating"} webhook configurations{" "}
        <span className="hint">
          {mutating
            ? "serial: configurations by name, hooks in list order"
            : "one parallel stage: order by name only"}
        </span>
      </h2>
      {configs.length === 0 ? <p className="muted">No configurations.</p> : null}
      {configs.map((c, ci) => {
        const name = c.metadata?.name ?? "";
        const firstIndex = starts[ci] ?? 0;
        return (
          <LegacyConfigSection
            key={name}
            resource={resource}
            config={c}
            apiVersion={apiVersion}
            actions={
              <RenameForm
                resource={resource}
                name={name}
                resourceVersion={c.metadata?.resourceVersion ?? ""}
                names={names}
                canRename={access.can("create") && access.can("delete")}
                disabledReason={access.reason("create") ?? access.reason("delete")}
                onResult={(r) =>
                  onRename(
                    r.ok
                      ? `Renamed ${r.from} to ${r.to}: its hooks moved in the call order.`
                      : `Rename of ${r.from} failed: ${r.error?.message ?? ""}`,
                  )
                }
              />
            }
          >
            <ReorderList
              resource={resource}
              config={c}
              canUpdate={access.can("update")}
              firstIndex={firstIndex}
            />
            <HookDetails config={c} mutating={mutating} />
          </LegacyConfigSection>
        );
      })}
    </section>
  );
}

function ServedV1beta1({ all }: { all: ServedLegacyKind[] }) {
  const [renameLog, setRenameLog] = useState<string | undefined>(undefined);
  const sections = useMemo(() => {
    const items = (kind: string) =>
      (all.find((k) => k.kind.kind === kind)?.configs ??
        []) as unknown as V1beta1WebhookConfiguration[];
    return legacyOrder({
      legacyMutatingWebhookConfigurations: items("MutatingWebhookConfiguration"),
      legacyValidatingWebhookConfigurations: items("ValidatingWebhookConfiguration"),
    });
  }, [all]);
  const group = all[0]?.kind.ref.group ?? "";
  return (
    <>
      <p className="hint">
        Served at{" "}
        <span className="mono">{[...new Set(all.map((k) => k.apiVersion))].join(", ")}</span>.
        Kubernetes 1.9–1.21 served these; their defaults differ from v1&apos;s: failurePolicy{" "}
        <strong>Ignore</strong> (v1: Fail), matchPolicy <strong>Exact</strong> (v1: Equivalent),
        sideEffects <strong>Unknown</strong> (v1: required), timeoutSeconds <strong>30</strong> (v1:
        10), admissionReviewVersions <strong>[v1beta1]</strong> (v1: required); selectors{" "}
        <span className="mono">{"{}"}</span>, rule scope <span className="mono">*</span> and
        reinvocationPolicy Never as in v1.
      </p>
      <LegacyOrderSections title="Call order" sections={sections} />
      {renameLog ? (
        <p role="status" className="notice">
          {renameLog}
        </p>
      ) : null}
      {all.map((k) => (
        <KindSection key={k.resource} served={k} onRename={setRenameLog} />
      ))}
      <section className="panel" aria-labelledby="prop-h">
        <h2 id="prop-h">Configuration propagation</h2>
        <PropagationTable notes={PROPAGATION.v1beta1Webhooks} group={group} />
      </section>
    </>
  );
}

/**
 * v1beta1 Mutating/ValidatingWebhookConfiguration (1.9–1.21), where discovery finds them served:
 * configurations and hooks in call order, each hook's effective settings with the v1beta1
 * defaults against v1's, YAML edit validated with the v1beta1 rules, create, delete, reorder and
 * safe rename — the frame of the other historical kinds' pages.
 */
export function V1beta1HooksPage() {
  const state = useV1beta1HookConfigs();
  return (
    <LegacyKindShell
      title="v1beta1 webhook configurations"
      resource={V1BETA1_HOOK_RESOURCES}
      state={state}
      notServed="This cluster does not serve v1beta1 webhook configurations: Kubernetes 1.9–1.21 served them (admissionregistration.k8s.io/v1beta1, removed in 1.22)."
    >
      {(_first, all) => <ServedV1beta1 all={all} />}
    </LegacyKindShell>
  );
}
