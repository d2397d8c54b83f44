"use client";

import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { webhookAccessQuery, webhookObjectQuery, type ConfigObject } from "@/lib/queries/webhooks";
import { toEditorYaml } from "@/lib/webhooks/yaml-text";
import { forNewObject, KIND_OF, type WebhookResource } from "@/lib/webhooks/kinds";
import { templateById } from "@/lib/webhooks/templates";
import { ErrorBox } from "@/components/ui/error-box";
import { WebhookEditor } from "./webhook-editor";

export type EditorTarget =
  | { mode: "edit"; resource: WebhookResource; name: string }
  | { mode: "template"; templateId: string }
  | { mode: "duplicate"; resource: WebhookResource; name: string };

/** Loads what the editor starts from (stored object, template or copy) and the identity's rights. */
export default function EditorLoader({ target }: { target: EditorTarget }) {
  const { context = "", error: contextError } = useTabContext();
  const access = useQuery({ ...webhookAccessQuery(context), enabled: !!context });
  const needsObject = target.mode !== "template";
  const objResource =
    target.mode === "template" ? "validatingwebhookconfigurations" : target.resource;
  const objName = target.mode === "template" ? "" : target.name;
  const obj = useQuery({
    ...webhookObjectQuery(context, objResource, objName),
    enabled: !!context && needsObject,
    // The editor must start from what is stored now, never from an older cached copy.
    staleTime: 0,
    gcTime: 0,
    refetchOnMount: "always",
  });

  if (contextError) return <ErrorBox error={contextError} />;
  if (obj.error) return <ErrorBox error={obj.error} />;
  if (!access.data || (needsObject && !obj.data))
    return (
      <p className="muted" aria-busy="true">
        Loading the editor…
      </p>
    );

  if (target.mode === "template") {
    const t = templateById(target.templateId);
    if (!t) return <p className="alert">No template {target.templateId}.</p>;
    return (
      <WebhookEditor
        key={`t-${t.id}`}
        context={context}
        resource={t.resource}
        initialText={t.yaml}
        canWrite={access.data[t.resource].create}
      />
    );
  }
  const stored = obj.data as ConfigObject;
  if (target.mode === "duplicate") {
    const copy = forNewObject(
      { ...stored, apiVersion: "admissionregistration.k8s.io/v1", kind: KIND_OF[target.resource] },
      `${target.name}-copy`,
    );
    return (
      <WebhookEditor
        key={`d-${target.name}`}
        context={context}
        resource={target.resource}
        initialText={toEditorYaml(copy)}
        canWrite={access.data[target.resource].create}
      />
    );
  }
  return (
    <WebhookEditor
      key={`e-${target.name}-${stored.metadata?.resourceVersion}`}
      context={context}
      resource={target.resource}
      name={target.name}
      initialText={toEditorYaml({
        ...stored,
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: KIND_OF[target.resource],
      })}
      canWrite={access.data[target.resource].update}
    />
  );
}
