"use client";

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { webhookAccessQuery, webhookObjectQuery } from "@/lib/queries/webhooks";
import type { ConfigObject } from "@/lib/api/webhooks";
import { toEditorYaml } from "@/lib/webhooks/yaml-text";
import { forNewObject, KIND_OF, type AdmissionResource } from "@/lib/webhooks/resource-kinds";
import { bindingTextFor, templateById } from "@/lib/webhooks/templates";
import { ErrorBox } from "@/components/ui/error-box";
import { WebhookEditor } from "./webhook-editor";
import type { ProposedOperation } from "@/lib/webhooks/proposed-patch";
import { applyProposal } from "./apply-proposal";
import { configurationProvenance, type ManagedObject } from "@/lib/admission/provenance/provenance";
import { recreatedObject, restoredObject } from "@/lib/admission/history/restore";
import { actorText } from "@/lib/admission/history/timeline";
import { versionQuery } from "@/lib/queries/history";
import { dateTime } from "@/lib/clock";

/** A change proposed by a lint finding: the patch (or why it was refused) and its reason. */
export type Proposal =
  | { ok: true; patch: ProposedOperation[]; why: string }
  | { ok: false; message: string; why: string };

export type EditorTarget =
  | {
      mode: "edit";
      resource: AdmissionResource;
      name: string;
      proposal?: Proposal;
      /** A stored change (the change history's id) whose version is opened as a proposed edit. */
      restore?: number;
    }
  /** `policy`: for a binding template, the policy it binds. */
  | { mode: "template"; templateId: string; policy?: string }
  | { mode: "duplicate"; resource: AdmissionResource; name: string }
  /** A deleted object created again from a stored version (the change history's id). */
  | { mode: "recreate"; resource: AdmissionResource; restore: number };

/** Loads what the editor starts from (stored object, template or copy) and the identity's rights. */
export default function EditorLoader({ target }: { target: EditorTarget }) {
  const { context = "", error: contextError } = useTabContext();
  const access = useQuery({ ...webhookAccessQuery(context), enabled: !!context });
  const needsObject = target.mode !== "template" && target.mode !== "recreate";
  const objResource =
    target.mode === "template" ? "validatingwebhookconfigurations" : target.resource;
  const objName = target.mode === "template" || target.mode === "recreate" ? "" : target.name;
  const obj = useQuery({
    ...webhookObjectQuery(context, objResource, objName),
    enabled: !!context && needsObject,
    // The editor must start from what is stored now, never from an older cached copy.
    staleTime: 0,
    gcTime: 0,
    refetchOnMount: "always",
    refetchOnReconnect: false,
  });
  // The editor works on the object as first read. A later fetch (a reconnect, a retry after a
  // blip) must not replace it: the editor would remount with the stored text, or give way to an
  // error, and the admin's unsaved edit would be gone. A newer version reaches the editor as a
  // 409 on apply, with the three-way view.
  const restoreId =
    target.mode === "edit" || target.mode === "recreate" ? target.restore : undefined;
  const restore = useQuery({
    ...versionQuery(context, restoreId ?? 0),
    enabled: !!context && restoreId !== undefined,
  });
  const loadKey = `${context}\n${objResource}\n${objName}`;
  const [first, setFirst] = useState<{ key: string; data: ConfigObject } | undefined>(undefined);
  const pinned = first?.key === loadKey ? first.data : undefined;
  // What this page read itself (never a copy cached before it opened); set while rendering,
  // React's pattern for state derived from a change, guarded by `pinned`.
  const fresh = obj.isFetchedAfterMount ? obj.data : undefined;
  if (!pinned && fresh) setFirst({ key: loadKey, data: fresh });
  const data = pinned ?? fresh;

  if (contextError) return <ErrorBox error={contextError} />;
  if (obj.error && !data) return <ErrorBox error={obj.error} />;
  if (restore.error) return <ErrorBox error={restore.error} />;
  if (!access.data || (needsObject && !data) || (restoreId !== undefined && !restore.data))
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
        initialText={bindingTextFor(t, target.policy)}
        canWrite={access.data[t.resource].create}
        bindingTemplate={t.binding}
      />
    );
  }
  if (target.mode === "recreate") {
    const version = restore.data;
    const kind = KIND_OF[target.resource];
    const ok = version?.object !== undefined && version.kind === kind;
    return (
      <WebhookEditor
        key={`r-${target.restore}`}
        context={context}
        resource={target.resource}
        initialText={
          ok && version.object
            ? toEditorYaml(recreatedObject(version.object, "admissionregistration.k8s.io/v1", kind))
            : ""
        }
        baseText=""
        proposal={
          ok
            ? {
                ok: true,
                message: `${kind} ${version.name} as it was stored on ${dateTime(version.time)} (by ${actorText(version)}), its last known state before it was deleted, opened to be created again: review it, run a dry run, then create it. Nothing is created until you do.`,
              }
            : {
                ok: false,
                message: `Change ${target.restore} is not a stored version of a ${kind}.`,
              }
        }
        canWrite={access.data[target.resource].create}
      />
    );
  }
  const stored = data as ConfigObject;
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
  const storedObject = {
    ...stored,
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: KIND_OF[target.resource],
  };
  const storedText = toEditorYaml(storedObject);
  const version = restore.data;
  const proposed = version
    ? version.object && version.name === target.name
      ? {
          ok: true as const,
          object: restoredObject(storedObject, version.object),
          message: `The version of ${dateTime(version.time)} (by ${actorText(version)}) opened as a proposed edit: review the diff against the object as it is now, run a dry run, then apply. Nothing is applied until you do, and the apply is refused if the object changed since this page read it.`,
        }
      : {
          ok: false as const,
          message: `Change ${version.id} is not a stored version of ${target.name}.`,
        }
    : target.proposal
      ? applyProposal(storedObject, target.proposal)
      : undefined;
  return (
    <WebhookEditor
      key={`e-${target.name}-${stored.metadata?.resourceVersion}`}
      context={context}
      resource={target.resource}
      name={target.name}
      initialText={proposed?.ok ? toEditorYaml(proposed.object) : storedText}
      baseText={storedText}
      proposal={proposed ? { ok: proposed.ok, message: proposed.message } : undefined}
      canWrite={access.data[target.resource].update}
      provenance={configurationProvenance(stored as ManagedObject)}
    />
  );
}
