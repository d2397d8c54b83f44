"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { collectionQuery } from "@/lib/queries/collections";
import { webhookAccessQuery, webhookRef } from "@/lib/queries/webhooks";
import type { ConfigObject, RenameStep } from "@/lib/api/webhooks";
import { orderModel, type OrderEntry } from "@/lib/webhooks/order-view";
import type { WebhookResource } from "@/lib/webhooks/resource-kinds";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";
import { useLiveCollections } from "@/components/live/use-live-collections";
import { ErrorBox } from "@/components/ui/error-box";
import { ReorderList } from "./reorder-list";
import { RenameForm } from "./rename-form";
import { LatencyBudget } from "./latency-budget";
import { PolicyStage } from "./policy-stage";
import { useWebhookConfigs, type KindCollection } from "@/components/webhooks/use-webhook-configs";
import { servedPolicyKinds } from "@/lib/webhooks/hook-kinds";
import type { PolicySnapshot } from "@/lib/webhooks/order-view";
import { LegacyOrderSections } from "@/components/legacy-admission/legacy-order-sections";
import { legacyOrder } from "@/lib/admission/historical/legacy-order";
import type {
  ExternalAdmissionHookConfiguration,
  V1beta1WebhookConfiguration,
} from "@/lib/admission/model/snapshot";
import { servedV1beta1HookKinds } from "@/lib/k8s/v1beta1-hooks";
import { servedKinds } from "@/lib/k8s/served-kinds";
import type { OverviewData } from "@/lib/api/overview";
import { LiveIndicator } from "@/components/live/live-indicator";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";
import { StaticBadge } from "@/components/outside-api/static-badge";
import { admissionManifestsQuery } from "@/lib/queries/admission-manifests";
import { outsideApiQuery } from "@/lib/queries/outside-api";
import { staticObjectsOf, type StaticObject } from "@/lib/webhooks/static-objects";

const MUTATING = webhookRef("mutatingwebhookconfigurations");
const VALIDATING = webhookRef("validatingwebhookconfigurations");

interface RenameLog {
  ok: boolean;
  from: string;
  to: string;
  steps: RenameStep[];
  error?: Error;
}

function byName(items: readonly ConfigObject[]): ConfigObject[] {
  return [...items].sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1));
}

/**
 * The static configurations of a stage (loaded by the apiserver from its manifest directory):
 * called before every API one, and read-only — the API refuses their reserved names, so they can
 * be neither reordered nor renamed here.
 */
function StaticConfigs({
  resource,
  statics,
}: {
  resource: WebhookResource;
  statics: readonly StaticObject<ConfigObject>[];
}) {
  return (
    <>
      {statics.map(({ object: c, origin }, ci) => {
        const name = c.metadata?.name ?? "";
        return (
          <li key={name} data-testid={`config-${name}`} data-position={ci + 1} data-static="true">
            <div className="config-head">
              <span className="idx">{ci + 1}.</span>
              <Link className="mono" href={`/webhooks/${resource}/${encodeURIComponent(name)}`}>
                {name}
              </Link>
              <StaticBadge origin={origin} />
              <span className="hint">
                first in its plugin · read-only: edit {origin.file ?? "its manifest file"} to change
                it
              </span>
            </div>
            <ol className="mono">
              {(c.webhooks ?? []).map((h, i) => (
                <li key={`${String(h.name)}-${i}`}>{String(h.name ?? "")}</li>
              ))}
            </ol>
          </li>
        );
      })}
    </>
  );
}

function Stage({
  title,
  note,
  resource,
  statics,
  configs,
  entries,
  canUpdate,
  canRename,
  onRename,
}: {
  title: string;
  note: string;
  resource: WebhookResource;
  statics: readonly StaticObject<ConfigObject>[];
  configs: ConfigObject[];
  entries: OrderEntry[];
  canUpdate: boolean;
  canRename: boolean;
  onRename: (r: RenameLog) => void;
}) {
  const names = configs.map((c) => c.metadata?.name ?? "");
  return (
    <section className="panel" aria-label={title}>
      <h2>
        {title} <span className="hint">{note}</span>
      </h2>
      {configs.length === 0 && statics.length === 0 ? (
        <p className="muted">None in this cluster: nothing of this kind runs on writes.</p>
      ) : null}
      <ol className="config-order">
        <StaticConfigs resource={resource} statics={statics} />
        {configs.map((c, ci) => {
          const name = c.metadata?.name ?? "";
          const first = entries.find((e) => e.configuration === name)?.index ?? 0;
          return (
            <li
              key={name}
              data-testid={`config-${name}`}
              data-position={statics.length + ci + 1}
              data-resource-version={c.metadata?.resourceVersion}
            >
              <div className="config-head">
                <span className="idx">{statics.length + ci + 1}.</span>
                <Link className="mono" href={`/webhooks/${resource}/${encodeURIComponent(name)}`}>
                  {name}
                </Link>
                <span className="hint">
                  {(c.webhooks ?? []).length} {(c.webhooks ?? []).length === 1 ? "hook" : "hooks"}
                </span>
                <span className="spacer" />
                <RenameForm
                  resource={resource}
                  name={name}
                  resourceVersion={c.metadata?.resourceVersion ?? ""}
                  names={names}
                  before={statics.length}
                  canRename={canRename}
                  onResult={onRename}
                />
              </div>
              <ReorderList
                resource={resource}
                config={c}
                canUpdate={canUpdate}
                firstIndex={first}
              />
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** The historical webhook kinds discovery finds served: v1beta1 configurations, external hooks. */
function selectHistorical(apis: OverviewData["apis"]) {
  return [
    ...servedV1beta1HookKinds(apis),
    ...servedKinds(apis).filter(
      (k) => k.readAt && k.known.kind === "ExternalAdmissionHookConfiguration",
    ),
  ];
}

/**
 * The historical hooks in their own labelled sections, below the cluster's own order (read only
 * here; they are edited and reordered on their pages).
 */
function HistoricalOrder({ kinds }: { kinds: KindCollection[] }) {
  const sections = useMemo(() => {
    const items = (r: string) => (kinds.find((k) => k.resource === r)?.items ?? []) as unknown[];
    return legacyOrder({
      legacyMutatingWebhookConfigurations: items(
        "v1beta1-mutatingwebhookconfigurations",
      ) as V1beta1WebhookConfiguration[],
      legacyValidatingWebhookConfigurations: items(
        "v1beta1-validatingwebhookconfigurations",
      ) as V1beta1WebhookConfiguration[],
      externalAdmissionHookConfigurations: items(
        "externaladmissionhookconfigurations",
      ) as ExternalAdmissionHookConfiguration[],
    });
  }, [kinds]);
  return (
    <>
      <LegacyOrderSections
        title="Historical hooks — served apart, not called by this apiserver"
        sections={sections}
      />
      {sections.length > 0 ? (
        <p className="hint">
          Reorder and rename them on the <Link href="/legacy-webhooks">v1beta1 hooks</Link> page;
          external admission hooks ran in parallel, so they have no order to change.
        </p>
      ) : null}
    </>
  );
}

/** The effective call order: mutating serial (and reinvocation), validating in parallel. */
export function OrderPage() {
  const { context = "", error: contextError } = useTabContext();
  const enabled = context !== "";
  const m = useQuery({ ...collectionQuery<ConfigObject>(context, MUTATING), enabled });
  const v = useQuery({ ...collectionQuery<ConfigObject>(context, VALIDATING), enabled });
  const access = useQuery({ ...webhookAccessQuery(context), enabled });
  const [renameLog, setRenameLog] = useState<RenameLog | undefined>(undefined);
  // Admission policies take their place too (when the cluster serves them), and the historical
  // hooks below: all live from the page's one stream.
  const policyKinds = useWebhookConfigs(undefined, servedPolicyKinds, false, false).kinds;
  const historicalKinds = useWebhookConfigs(undefined, selectHistorical, false, false).kinds;
  const live = useLiveCollections(context, [
    MUTATING,
    VALIDATING,
    ...policyKinds.map((k) => k.ref),
    ...historicalKinds.map((k) => k.ref),
  ]);
  const policies = useMemo((): PolicySnapshot => {
    const items = (r: string) => policyKinds.find((k) => k.resource === r)?.items ?? [];
    return {
      validatingAdmissionPolicies: items("validatingadmissionpolicies") as NonNullable<
        PolicySnapshot["validatingAdmissionPolicies"]
      >,
      validatingAdmissionPolicyBindings: items("validatingadmissionpolicybindings") as NonNullable<
        PolicySnapshot["validatingAdmissionPolicyBindings"]
      >,
      mutatingAdmissionPolicies: items("mutatingadmissionpolicies") as NonNullable<
        PolicySnapshot["mutatingAdmissionPolicies"]
      >,
      mutatingAdmissionPolicyBindings: items("mutatingadmissionpolicybindings") as NonNullable<
        PolicySnapshot["mutatingAdmissionPolicyBindings"]
      >,
    };
  }, [policyKinds]);
  // The static hooks and policies (when the dashboard reads the manifest directories) run first.
  const manifests = useQuery({ ...admissionManifestsQuery(context), enabled });
  // What runs outside the API (the notice above the stages) is read beside the lists, not after
  // them, and the order waits for it: a notice that came in later pushed the lists down under a
  // pointer about to drag a hook (a failed first read shows the order without it).
  const outside = useQuery({ ...outsideApiQuery(context), enabled });
  const staticObjects = manifests.data?.objects;
  const model = useMemo(
    () =>
      m.data && v.data
        ? orderModel(
            m.data.items as V1MutatingWebhookConfiguration[],
            v.data.items as V1ValidatingWebhookConfiguration[],
            policies,
            staticObjects,
          )
        : undefined,
    [m.data, v.data, policies, staticObjects],
  );
  const error = contextError ?? m.error ?? v.error;
  if (error) return <ErrorBox error={error} />;
  // The static configurations come first: the order is not shown before they are known (a
  // failed read of them shows the API's order alone), nor before what runs outside the API.
  if (
    !model ||
    !m.data ||
    !v.data ||
    (enabled && (manifests.isPending || (outside.isPending && outside.failureCount === 0)))
  )
    return <p className="muted">Reading the cluster…</p>;
  const a = access.data;
  const canRename = (r: WebhookResource) => !!a?.[r].create && !!a[r].delete;
  return (
    <div className="stack">
      <div className="page-head">
        <h1>Call order</h1>
        <LiveIndicator {...live} />
        <span className="hint">
          Configurations run in name order, hooks in list order. Drag a hook, or focus it and press
          Alt+↑/↓, to reorder within its configuration; rename a configuration to move it.
        </span>
      </div>
      <OutsideApiNotice />
      {a && !a.mutatingwebhookconfigurations.update && !a.validatingwebhookconfigurations.update ? (
        <p className="hint" data-testid="read-only">
          Read-only: your identity may not change webhook configurations.
        </p>
      ) : null}
      {renameLog ? (
        <div className={renameLog.ok ? "notice" : "alert"} role="status" aria-label="Rename result">
          <strong>
            {renameLog.ok
              ? `Renamed ${renameLog.from} to ${renameLog.to}.`
              : `Rename of ${renameLog.from} to ${renameLog.to} failed: ${renameLog.error?.message ?? ""}`}
          </strong>
          <ol className="steps">
            {renameLog.steps.map((s, i) => (
              <li key={i} className={s.ok ? "good" : "bad"}>
                {s.ok ? "✓" : "✗"} {s.step}
                {s.message ? `: ${s.message}` : ""}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      <LatencyBudget model={model} />
      <div className="order-grid">
        <div className="stack">
          <PolicyStage
            title="Mutating admission policies — first"
            note="every matching binding, before any mutating webhook; no order among them is guaranteed"
            entries={model.mutatingPolicies}
            mutating
          />
          <Stage
            title="1. Mutating webhooks — serial"
            note="each sees the object as the previous one left it"
            resource="mutatingwebhookconfigurations"
            statics={staticObjectsOf<ConfigObject>(staticObjects, "mutatingwebhookconfigurations")}
            configs={byName(m.data.items)}
            entries={model.mutating}
            canUpdate={!!a?.mutatingwebhookconfigurations.update}
            canRename={canRename("mutatingwebhookconfigurations")}
            onRename={setRenameLog}
          />
        </div>
        <div className="stack">
          <section className="panel" aria-label="Reinvocation round">
            <h2>
              2. Reinvocation (round 1){" "}
              <span className="hint">
                only if some hook or policy changed the object in round 0
              </span>
            </h2>
            {model.reinvocation.length === 0 && model.policyReinvocation.length === 0 ? (
              <p className="muted">No hook or mutating policy has reinvocationPolicy: IfNeeded.</p>
            ) : (
              <ol>
                {model.policyReinvocation.map((r) => (
                  <li key={r.entry.key} className="mono" data-testid="reinvoked-policy">
                    {r.entry.policy} <span className="muted">via</span> {r.entry.binding}{" "}
                    <span className="hint">
                      {r.trigger.kind === "later-mutator"
                        ? `policy; if any of ${r.trigger.after.length} later policies or hooks mutate`
                        : "policy; only if something changes the object in round 1"}
                    </span>
                  </li>
                ))}
                {model.reinvocation.map((r) => (
                  <li key={r.entry.key} className="mono">
                    {r.entry.configuration} / {r.entry.hook}{" "}
                    <span className="hint">
                      {r.trigger.kind === "later-mutator"
                        ? `if any of ${r.trigger.after.length} later hooks mutate`
                        : "only if something changes the object in round 1"}
                    </span>
                  </li>
                ))}
              </ol>
            )}
          </section>
          <Stage
            title="3. Validating webhooks — one parallel stage"
            note="all called at once; order below is by name only"
            resource="validatingwebhookconfigurations"
            statics={staticObjectsOf<ConfigObject>(
              staticObjects,
              "validatingwebhookconfigurations",
            )}
            configs={byName(v.data.items)}
            entries={model.validating}
            canUpdate={!!a?.validatingwebhookconfigurations.update}
            canRename={canRename("validatingwebhookconfigurations")}
            onRename={setRenameLog}
          />
          <PolicyStage
            title="Validating admission policies — beside the validating webhooks"
            note="evaluated in the apiserver in the validating phase, just before the validating webhooks are called; no backend, no timeout"
            entries={model.validatingPolicies}
            mutating={false}
          />
        </div>
      </div>
      <HistoricalOrder kinds={historicalKinds} />
    </div>
  );
}
