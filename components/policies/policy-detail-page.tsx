"use client";

import { useMemo } from "react";
import { EngineOwnerLine } from "@/components/engines/engine-owner-line";
import { useQuery } from "@tanstack/react-query";
import { servedPolicyKinds } from "@/lib/webhooks/hook-kinds";
import { KIND_OF, type PolicyResource } from "@/lib/webhooks/resource-kinds";
import { fightsQuery, provenanceObjectQuery, webhookAccessQuery } from "@/lib/queries/webhooks";
import { configurationProvenance, type ManagedObject } from "@/lib/admission/provenance/provenance";
import { ProvenanceTable } from "@/components/provenance/provenance-table";
import { RecreatedNotice } from "@/components/provenance/recreated-notice";
import {
  BINDING_OF,
  isBindingResource,
  POLICY_OF,
  type BindingLike,
  type PolicyLike,
} from "@/lib/policies/view";
import { useWebhookConfigs } from "@/components/webhooks/use-webhook-configs";
import { ObjectHead } from "@/components/webhooks/object-head";
import { ErrorBox } from "@/components/ui/error-box";
import { usePolicyParams } from "./use-policy-params";
import { PolicyBody } from "./policy-body";
import { BindingBody } from "./binding-body";
import { PolicyHealthCard } from "@/components/health/policy-health-card";
import { healthQuery } from "@/lib/queries/health";
import { ObjectGone } from "@/components/ui/object-gone";
import { RecentDecisions } from "@/components/decisions/recent-decisions";
import { HookEffects } from "@/components/history/hook-effects";
import { kindOfResource } from "@/lib/admission/history/kinds";
import { BreakGlassPanel } from "@/components/break-glass/panel";

/** One admission policy or binding, every field readable, live. */
export function PolicyDetailPage({ resource, name }: { resource: PolicyResource; name: string }) {
  const { context, kinds, live, error, loading } = useWebhookConfigs(undefined, servedPolicyKinds);
  const access = useQuery({ ...webhookAccessQuery(context ?? ""), enabled: !!context });
  const params = usePolicyParams(context, kinds);
  const own = kinds.find((k) => k.resource === resource);
  const obj = own?.items?.find((o) => o.metadata?.name === name) as
    (PolicyLike & BindingLike) | undefined;
  const kind = KIND_OF[resource];
  const can = access.data?.[resource];
  // The apiserver counts each kind's checks apart: the filter names the kind.
  const policyKind = resource.startsWith("validating")
    ? "ValidatingAdmissionPolicy"
    : "MutatingAdmissionPolicy";
  const binding = isBindingResource(resource);
  const policyName = binding ? (obj?.spec?.policyName ?? "") : name;
  const health = useQuery({
    ...healthQuery(
      context ?? "",
      binding
        ? { kind: policyKind, policy: policyName, binding: name }
        : { kind: policyKind, policy: name },
    ),
    enabled: !!context && !!obj && policyName !== "",
  });
  const rv = obj?.metadata?.resourceVersion ?? "";
  // managedFields: the lists leave them out, so the object is read whole once per version.
  const managed = useQuery({
    ...provenanceObjectQuery(context ?? "", resource, name, rv),
    enabled: !!context && !!rv,
  });
  const fights = useQuery({ ...fightsQuery(context ?? "", rv), enabled: !!context && !!rv });
  const managedObject = managed.data;
  const provenance = useMemo(
    () => (managedObject ? configurationProvenance(managedObject as ManagedObject) : undefined),
    [managedObject],
  );

  if (error) return <ErrorBox error={error} />;
  if (own?.error) return <ErrorBox error={own.error} />;
  if (!loading && !own)
    return (
      <p className="alert" role="alert">
        The cluster does not serve {kind}.
      </p>
    );
  if (loading || !own?.items) return <p className="muted">Reading the cluster…</p>;
  if (!obj) return <ObjectGone kind={kind} name={name} list="/policies" />;
  const partner = binding ? POLICY_OF[resource] : BINDING_OF[resource];
  const partnerItems = kinds.find((k) => k.resource === partner)?.items ?? [];
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
      <RecreatedNotice recreations={fights.data?.recreations} kind={kind} name={name} />
      <EngineOwnerLine kind={kind} object={obj} />
      {isBindingResource(resource) ? <BreakGlassPanel resource={resource} name={name} /> : null}
      {binding ? (
        <BindingBody
          resource={resource}
          binding={obj}
          policy={
            partnerItems.find((p) => p.metadata?.name === obj.spec?.policyName) as
              PolicyLike | undefined
          }
          params={params.data?.bindings[`${resource}/${name}`]}
        />
      ) : (
        <PolicyBody
          resource={resource}
          policy={obj}
          bindings={(partnerItems as BindingLike[]).filter((b) => b.spec?.policyName === name)}
          params={params.data?.bindings}
          canCreateBinding={!!access.data?.[BINDING_OF[resource]].create}
        />
      )}
      <div className="panel">
        <h2>Provenance</h2>
        {managed.error ? (
          <p className="muted">The field managers could not be read: {managed.error.message}</p>
        ) : (
          <ProvenanceTable
            provenance={provenance}
            section={provenance?.sections[0]}
            fights={(fights.data?.fights ?? []).filter((f) => f.kind === kind && f.name === name)}
            subject={binding ? "binding" : "policy"}
          />
        )}
      </div>
      {health.data ? (
        <PolicyHealthCard
          kind={policyKind}
          policy={policyName}
          rows={health.data.policies}
          metricsError={health.data.metricsError}
        />
      ) : null}
      {health.error ? (
        <p className="muted">Health could not be read: {health.error.message}</p>
      ) : null}
      {context && policyName ? (
        <div className="panel">
          <h2>Recent decisions</h2>
          {binding ? (
            <p className="hint">
              Of policy <span className="mono">{policyName}</span> through this binding.
            </p>
          ) : null}
          <RecentDecisions
            context={context}
            name={policyName}
            policy
            within={{
              phase: resource.startsWith("validating") ? "validating" : "mutating",
              ...(binding ? { configuration: name } : {}),
            }}
          />
          {kindOfResource(resource) ? (
            <HookEffects
              context={context}
              kind={kindOfResource(resource) ?? "ValidatingAdmissionPolicy"}
              name={name}
              policy={policyName}
              phase={resource.startsWith("validating") ? "validating" : "mutating"}
            />
          ) : null}
        </div>
      ) : null}
      {params.error ? <ErrorBox error={params.error} /> : null}
    </div>
  );
}
