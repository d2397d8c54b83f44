"use client";

import { EngineOwnerLine } from "@/components/engines/engine-owner-line";
import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { collectionQuery } from "@/lib/queries/collections";
import {
  fightsQuery,
  provenanceObjectQuery,
  webhookAccessQuery,
  webhookDetailsQuery,
  webhookRef,
} from "@/lib/queries/webhooks";
import { configurationProvenance, type ManagedObject } from "@/lib/admission/provenance/provenance";
import { ProvenanceTable } from "@/components/provenance/provenance-table";
import { RecreatedNotice } from "@/components/provenance/recreated-notice";
import { useLintState } from "./use-lint-state";
import { KIND_OF, type WebhookResource } from "@/lib/webhooks/resource-kinds";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { lintConfigurations } from "@/lib/webhooks/findings";
import { lintMinor } from "@/lib/webhooks/lint-minor";
import { assumedMinorText } from "@/lib/admission/model/kubernetes-minor";
import { findingConcerns } from "@/lib/webhooks/finding-counts";
import { orderModel } from "@/lib/webhooks/order-view";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";
import { useLiveCollections } from "@/components/live/use-live-collections";
import { ErrorBox } from "@/components/ui/error-box";
import { HookPanel } from "./hook-panel";
import { ObjectHead } from "./object-head";
import { BreakGlassPanel } from "@/components/break-glass/panel";
import { webhookDefaults } from "@/lib/admission/model/webhook-defaults";
import { webhookHookHref } from "@/lib/namespaces/links";
import { ConfigurationDecisions } from "@/components/decisions/configuration-decisions";
import { HookHealthSlot } from "@/components/health/hook-health-slot";
import { HookEffects } from "@/components/history/hook-effects";
import { useChangeMarkers } from "@/components/history/use-change-markers";
import { kindOfResource } from "@/lib/admission/history/kinds";
import { healthQuery } from "@/lib/queries/health";
import { ObjectGone } from "@/components/ui/object-gone";

const MUTATING = webhookRef("mutatingwebhookconfigurations");
const VALIDATING = webhookRef("validatingwebhookconfigurations");

/** One configuration, every field readable, live. */
export function WebhookDetailPage({ resource, name }: { resource: WebhookResource; name: string }) {
  const { context = "", error: contextError } = useTabContext();
  const enabled = context !== "";
  const m = useQuery({ ...collectionQuery<ConfigLike>(context, MUTATING), enabled });
  const v = useQuery({ ...collectionQuery<ConfigLike>(context, VALIDATING), enabled });
  const live = useLiveCollections(
    context,
    useMemo(() => [MUTATING, VALIDATING], []),
  );
  const access = useQuery({ ...webhookAccessQuery(context), enabled });
  const own = resource === "mutatingwebhookconfigurations" ? m : v;
  const historyKind = kindOfResource(resource);
  const changeMarkers = useChangeMarkers(context, historyKind, name);
  const obj = own.data?.items.find((o) => o.metadata?.name === name);
  const rv = obj?.metadata?.resourceVersion ?? "";
  const details = useQuery({
    ...webhookDetailsQuery(context, resource, name, rv),
    enabled: enabled && !!rv,
  });
  // managedFields: the lists leave them out, so the object is read whole once per version.
  const managed = useQuery({
    ...provenanceObjectQuery(context, resource, name, rv),
    enabled: enabled && !!rv,
  });
  const fights = useQuery({ ...fightsQuery(context, rv), enabled: enabled && !!rv });
  const managedObject = managed.data;
  const provenance = useMemo(
    () => (managedObject ? configurationProvenance(managedObject as ManagedObject) : undefined),
    [managedObject],
  );
  // The checks that need live state (backends, namespaces, discovery) run once it is read; the
  // offline ones do not wait for it.
  const lintState = useLintState(context, m.data?.items, v.data?.items, enabled);
  const health = useQuery({
    ...healthQuery(context, { source: KIND_OF[resource], configuration: name }),
    enabled,
  });
  const mItems = m.data?.items;
  const vItems = v.data?.items;
  const liveLint = lintState.data;
  const analysis = useMemo(() => {
    if (!mItems || !vItems) return undefined;
    const mm = mItems as V1MutatingWebhookConfiguration[];
    const vv = vItems as V1ValidatingWebhookConfiguration[];
    return { findings: lintConfigurations(mm, vv, liveLint), order: orderModel(mm, vv) };
  }, [mItems, vItems, liveLint]);

  const kind = KIND_OF[resource];
  const mutating = resource === "mutatingwebhookconfigurations";
  const can = access.data?.[resource];
  if (contextError) return <ErrorBox error={contextError} />;
  if (own.error) return <ErrorBox error={own.error} />;
  if (!own.data) return <p className="muted">Reading the cluster…</p>;
  if (!obj) return <ObjectGone kind={kind} name={name} list="/webhooks" />;
  const stage = mutating ? analysis?.order.mutating : analysis?.order.validating;
  const hooks = obj.webhooks ?? [];
  return (
    <div className="stack">
      <ObjectHead
        resource={resource}
        name={name}
        kind={kind}
        uid={obj.metadata?.uid ?? ""}
        resourceVersion={rv}
        live={live}
        can={can}
      />
      <EngineOwnerLine kind={kind} object={obj} />
      <BreakGlassPanel resource={resource} name={name} />
      <p className="hint" data-testid="lint-mode">
        {lintState.data
          ? `Lint: every check, the live ones (backends, namespaces, discovery) included.${lintState.data.notices.length ? ` ${lintState.data.notices.join(" ")}` : ""}`
          : lintState.error
            ? `Lint: offline checks only — the live state could not be read (${lintState.error.message}).`
            : "Lint: offline checks; reading the live state for the rest…"}{" "}
        <span data-testid="lint-minor">
          Checked as {assumedMinorText(lintMinor(lintState.data))}.
        </span>
      </p>
      <RecreatedNotice recreations={fights.data?.recreations} kind={kind} name={name} />
      {details.error ? <ErrorBox error={details.error} /> : null}
      {hooks.length === 0 ? <p className="muted">This configuration has no hooks.</p> : null}
      {hooks.map((h, i) => {
        const exemptionsHref = webhookHookHref(mutating, name, h.name ?? "");
        return (
          <HookPanel
            key={`${h.name}-${i}`}
            hook={h}
            position={i}
            mutating={mutating}
            defaults={webhookDefaults(obj?.apiVersion?.split("/")[1] ?? "v1")}
            details={details.data?.hooks[i]}
            findings={analysis?.findings.filter((f) =>
              findingConcerns(f, kind, name, h.name ?? ""),
            )}
            order={stage?.find((e) => e.configuration === name && e.position === i)}
            stageSize={stage?.length ?? 0}
            exemptionsHref={exemptionsHref}
            health={
              <HookHealthSlot
                health={health}
                index={i}
                hookName={h.name ?? ""}
                exemptionsHref={exemptionsHref}
                markers={changeMarkers}
              />
            }
            provenance={
              <ProvenanceTable
                provenance={provenance}
                section={provenance?.sections.find((sec) => sec.name === h.name)}
                fights={(fights.data?.fights ?? []).filter(
                  (f) =>
                    f.kind === kind &&
                    f.name === name &&
                    f.path.startsWith(`.webhooks[name=${JSON.stringify(h.name ?? "")}]`),
                )}
              />
            }
          />
        );
      })}
      <ConfigurationDecisions
        context={context}
        configuration={name}
        mutating={mutating}
        hooks={hooks}
        hint="Each webhook's decisions of the last hour, a marker at each change of this configuration, and the decisions either side of each change."
        after={(hook) =>
          historyKind ? (
            <HookEffects
              context={context}
              kind={historyKind}
              name={name}
              hook={hook}
              phase={mutating ? "mutating" : "validating"}
            />
          ) : null
        }
      />
    </div>
  );
}
