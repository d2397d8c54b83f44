"use client";

import Link from "next/link";
import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { servedPolicyKinds } from "@/lib/webhooks/hook-kinds";
import { KIND_OF, objectPagePath, type PolicyResource } from "@/lib/webhooks/resource-kinds";
import { policyRows, type PolicyLike } from "@/lib/policies/view";
import { staticObjectsOf } from "@/lib/webhooks/static-objects";
import { admissionManifestsQuery } from "@/lib/queries/admission-manifests";
import { manifestOriginKey, type ManifestKind } from "@/lib/admission/model/manifests";
import { StaticBadge } from "@/components/outside-api/static-badge";
import { paramsWarn } from "@/lib/policies/params-model";
import { webhookAccessQuery } from "@/lib/queries/webhooks";
import { useWebhookConfigs } from "@/components/webhooks/use-webhook-configs";
import { CreateMenu, type TemplateEntry } from "@/components/webhooks/create-menu";
import { ErrorBox } from "@/components/ui/error-box";
import { usePolicyParams } from "./use-policy-params";
import { LiveIndicator } from "@/components/live/live-indicator";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";

const STATIC_POLICY_RESOURCES: readonly PolicyResource[] = [
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
];

function Actions({ actions }: { actions: string[] }) {
  if (actions.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {actions.map((a) => (
        <span key={a} className={`badge ${a === "Deny" ? "bad" : a === "Warn" ? "warn" : ""}`}>
          {a}
        </span>
      ))}
    </>
  );
}

/** Admission policies and their bindings, live: which binding puts which policy into force. */
export function PoliciesListPage({ templates }: { templates: readonly TemplateEntry[] }) {
  const { context, kinds, live, error, loading } = useWebhookConfigs(undefined, servedPolicyKinds);
  const access = useQuery({ ...webhookAccessQuery(context ?? ""), enabled: !!context });
  const params = usePolicyParams(context, kinds);
  const api = useMemo(() => policyRows(kinds), [kinds]);
  // The static policies and bindings the apiserver loads from its manifest directories (when the
  // dashboard reads them): listed first, as the apiserver evaluates them, each marked static.
  const manifests = useQuery({ ...admissionManifestsQuery(context ?? ""), enabled: !!context });
  const statics = useMemo(
    () =>
      policyRows(
        STATIC_POLICY_RESOURCES.map((resource) => ({
          resource,
          kind: KIND_OF[resource],
          items: staticObjectsOf<PolicyLike>(manifests.data?.objects, resource).map(
            (o) => o.object,
          ),
        })),
      ),
    [manifests.data],
  );
  const policies = useMemo(() => [...statics.policies, ...api.policies], [statics, api]);
  const bindings = useMemo(() => [...statics.bindings, ...api.bindings], [statics, api]);
  const originOf = (kind: string, name: string) =>
    manifests.data?.objects.origins[manifestOriginKey(kind as ManifestKind, name)];
  const canCreate =
    access.data?.validatingadmissionpolicies.create ||
    access.data?.mutatingadmissionpolicies.create;

  if (error) return <ErrorBox error={error} />;
  return (
    <div className="stack">
      <div className="page-head">
        <h1>
          Admission policies <LiveIndicator {...live} />
        </h1>
        <span className="muted">
          {kinds.map((k) => `${k.items?.length ?? "…"} ${k.kind}`).join(" · ") ||
            "the cluster serves no admission policy kind"}
        </span>
        <span className="spacer" />
        <Link href="/webhooks/order">Call order</Link>
        <CreateMenu enabled={!!canCreate} templates={templates} base="/policies" />
      </div>
      <OutsideApiNotice />
      {kinds
        .filter((k) => k.error)
        .map((k) => (
          <p key={k.kind} className="alert" role="alert">
            {k.kind}: {k.error?.message}
          </p>
        ))}
      {loading ? (
        <p className="muted" aria-busy="true">
          Reading the cluster…
        </p>
      ) : (
        <>
          <section className="panel" aria-label="Policies">
            <h2>
              Policies <span className="hint">CEL evaluated in the apiserver, no backend</span>
            </h2>
            {policies.length === 0 ? (
              <p className="muted">
                No admission policies. Create one with New from template (each template is followed
                by its binding), or apply one with kubectl.
              </p>
            ) : null}
            {policies.length > 0 ? (
              <table className="data" aria-label="Policies table">
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Name</th>
                    <th scope="col">Bindings</th>
                    <th scope="col">Actions</th>
                    <th scope="col">failurePolicy</th>
                    <th scope="col">Params</th>
                    <th scope="col">Matches</th>
                    <th scope="col" className="num">
                      CEL
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {policies.map((p) => (
                    <tr key={`${p.resource}/${p.name}`} data-row-id={`${p.kind}/${p.name}`}>
                      <td className="muted">{p.kind.replace("AdmissionPolicy", "")}</td>
                      <td>
                        <Link className="mono" href={objectPagePath(p.resource, p.name)}>
                          {p.name}
                        </Link>{" "}
                        <StaticBadge origin={originOf(p.kind, p.name)} withFile={false} />
                        {p.typeWarnings > 0 ? (
                          <span className="badge warn" title="status.typeChecking warnings">
                            {p.typeWarnings} type {p.typeWarnings === 1 ? "warning" : "warnings"}
                          </span>
                        ) : null}
                      </td>
                      <td>
                        {p.inert ? (
                          <span className="badge warn" title="no binding names it: never evaluated">
                            inert: no binding
                          </span>
                        ) : (
                          p.bindings.map((b) => (
                            <Link
                              key={b.metadata?.name}
                              className="mono"
                              href={objectPagePath(
                                p.resource === "validatingadmissionpolicies"
                                  ? "validatingadmissionpolicybindings"
                                  : "mutatingadmissionpolicybindings",
                                b.metadata?.name ?? "",
                              )}
                            >
                              {b.metadata?.name}{" "}
                            </Link>
                          ))
                        )}
                      </td>
                      <td>
                        {p.resource === "mutatingadmissionpolicies" ? (
                          <span className="muted">mutates</span>
                        ) : (
                          <Actions actions={p.actions} />
                        )}
                      </td>
                      <td>
                        <span className={p.failurePolicy === "Fail" ? "" : "warn"}>
                          {p.failurePolicy}
                        </span>
                        {p.failurePolicyDefaulted ? <span className="hint"> (default)</span> : null}
                      </td>
                      <td className="mono">{p.paramKind ?? <span className="muted">—</span>}</td>
                      <td className="mono">{p.resources}</td>
                      <td className="num">{p.expressions}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
          </section>
          <section className="panel" aria-label="Bindings">
            <h2>
              Bindings{" "}
              <span className="hint">each puts one policy into force where it matches</span>
            </h2>
            {bindings.length === 0 ? (
              <p className="muted">
                No bindings: a policy does nothing until a binding puts it into force. Open a policy
                and add one with New binding.
              </p>
            ) : null}
            {bindings.length > 0 ? (
              <table className="data" aria-label="Bindings table">
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Name</th>
                    <th scope="col">Policy</th>
                    <th scope="col">Actions</th>
                    <th scope="col">paramRef</th>
                    <th scope="col">Params</th>
                    <th scope="col">Matches</th>
                  </tr>
                </thead>
                <tbody>
                  {bindings.map((b) => {
                    const st = params.data?.bindings[`${b.resource}/${b.name}`];
                    return (
                      <tr key={`${b.resource}/${b.name}`} data-row-id={`${b.kind}/${b.name}`}>
                        <td className="muted">{b.kind.replace("AdmissionPolicyBinding", "")}</td>
                        <td className="nowrap">
                          <Link className="mono" href={objectPagePath(b.resource, b.name)}>
                            {b.name}
                          </Link>{" "}
                          <StaticBadge origin={originOf(b.kind, b.name)} withFile={false} />
                        </td>
                        <td className="nowrap">
                          {b.policyExists ? (
                            <Link
                              className="mono"
                              href={objectPagePath(
                                b.resource === "validatingadmissionpolicybindings"
                                  ? "validatingadmissionpolicies"
                                  : "mutatingadmissionpolicies",
                                b.policyName,
                              )}
                            >
                              {b.policyName}
                            </Link>
                          ) : (
                            <span className="bad" title="the binding does nothing">
                              {b.policyName} (missing)
                            </span>
                          )}
                        </td>
                        <td className="nowrap">
                          {b.resource === "mutatingadmissionpolicybindings" ? (
                            <span className="muted">mutates</span>
                          ) : (
                            <Actions actions={b.actions} />
                          )}
                        </td>
                        <td className="mono">{b.paramRef}</td>
                        <td data-testid={`params-${b.name}`}>
                          {st ? (
                            <span className={paramsWarn(st) ? "bad" : "muted"} title={st.message}>
                              {st.state}
                            </span>
                          ) : (
                            <span className="muted">…</span>
                          )}
                        </td>
                        <td className="mono">{b.scope}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            ) : null}
          </section>
          {params.error ? <ErrorBox error={params.error} /> : null}
        </>
      )}
    </div>
  );
}
