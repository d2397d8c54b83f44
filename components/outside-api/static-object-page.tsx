"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { ErrorBox } from "@/components/ui/error-box";
import { ObjectGone } from "@/components/ui/object-gone";
import { HookPanel } from "@/components/webhooks/hook-panel";
import { ConfigurationDecisions } from "@/components/decisions/configuration-decisions";
import { HookHealthSlot } from "@/components/health/hook-health-slot";
import { healthQuery } from "@/lib/queries/health";
import { webhookHookHref } from "@/lib/namespaces/links";
import { webhookDefaults } from "@/lib/admission/model/webhook-defaults";
import { admissionManifestsQuery } from "@/lib/queries/admission-manifests";
import {
  KIND_OF,
  isWebhookResource,
  objectPagePath,
  type AdmissionResource,
} from "@/lib/webhooks/resource-kinds";
import { staticObjectOf } from "@/lib/webhooks/static-objects";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { toEditorYaml } from "@/lib/webhooks/yaml-text";
import { OutsideApiNotice } from "./outside-api-notice";
import { StaticBadge } from "./static-badge";
import { StaticReadOnly } from "./static-read-only";

/**
 * A static object's page (its name bears `.static.k8s.io`, so the API has no such object): read
 * from the manifest directories the dashboard was given, shown read-only with its file, or — when
 * the dashboard was given none — what the apiserver's metrics and audit events tell of it.
 * `edit`: the editor's route, which shows the same read-only view and no editor.
 */
export function StaticObjectPage({
  resource,
  name,
  edit = false,
}: {
  resource: AdmissionResource;
  name: string;
  edit?: boolean;
}) {
  const { context = "", error: contextError } = useTabContext();
  const q = useQuery({ ...admissionManifestsQuery(context), enabled: context !== "" });
  const kind = KIND_OF[resource];
  const webhook = isWebhookResource(resource);
  // The health report holds the static hooks beside the API's (read from the same metrics).
  const health = useQuery({
    ...healthQuery(context, { source: kind, configuration: name }),
    enabled: context !== "" && webhook,
  });
  const list = objectPagePath(resource);
  if (contextError) return <ErrorBox error={contextError} />;
  if (q.error) return <ErrorBox error={q.error} />;
  if (!q.data)
    return (
      <p className="muted" aria-busy="true">
        Reading the manifest directories…
      </p>
    );
  const found = staticObjectOf<ConfigLike>(q.data.objects, resource, name);
  if (!found) {
    if (q.data.configured) return <ObjectGone kind={kind} name={name} list={list} />;
    return (
      <div className="stack">
        <h1>
          <span className="muted">{kind}</span> <span className="mono">{name}</span>
        </h1>
        <p className="callout" data-testid="static-unread">
          Its name ends with the reserved suffix <span className="mono">.static.k8s.io</span>: the
          apiserver loads it from a manifest file, outside the API, and this dashboard was not given
          the manifest directories (<span className="mono">PORTCULLIS_ADMISSION_MANIFESTS</span>
          ), so it cannot show it.
        </p>
        <OutsideApiNotice full />
      </div>
    );
  }
  const { object, origin } = found;
  const mutating = resource === "mutatingwebhookconfigurations";
  const hooks = webhook ? (object.webhooks ?? []) : [];
  return (
    <div className="stack" data-testid="static-object">
      <div className="page-head">
        <h1>
          <span className="muted">{kind}</span> <span className="mono">{name}</span>
        </h1>
        <StaticBadge origin={origin} />
        <span className="spacer" />
        {edit ? (
          <Link href={objectPagePath(resource, name)}>Back to the object</Link>
        ) : (
          <Link href={list}>Back to the list</Link>
        )}
      </div>
      <StaticReadOnly origin={origin} what={kind} />
      {hooks.map((h, i) => {
        const exemptionsHref = webhookHookHref(mutating, name, h.name ?? "");
        return (
          <HookPanel
            key={`${h.name}-${i}`}
            hook={h}
            position={i}
            mutating={mutating}
            defaults={webhookDefaults("v1")}
            details={undefined}
            findings={undefined}
            order={undefined}
            stageSize={0}
            exemptionsHref={exemptionsHref}
            health={
              <HookHealthSlot
                health={health}
                index={i}
                hookName={h.name ?? ""}
                exemptionsHref={exemptionsHref}
              />
            }
          />
        );
      })}
      <div className="panel">
        <h2>As loaded from {origin.file ?? "its file"}</h2>
        <pre className="mono" data-testid="static-yaml">
          {toEditorYaml(object)}
        </pre>
      </div>
      <ConfigurationDecisions
        context={context}
        configuration={name}
        mutating={mutating}
        hooks={hooks}
      />
    </div>
  );
}
