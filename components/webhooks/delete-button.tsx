"use client";

import { useEffect, useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { objectPagePath, type AdmissionResource } from "@/lib/webhooks/kinds";
import { deleteConfiguration } from "@/lib/queries/webhooks";
import { isLegacyResource, type LegacyResource } from "@/lib/k8s/legacy-kinds";
import { ErrorBox } from "@/components/ui/error-box";

/** Delete with typed confirmation: the admin types the name; the delete has uid+rv preconditions. */
export function DeleteButton({
  resource,
  name,
  uid,
  resourceVersion,
  enabled,
  disabledReason,
  onDeleted,
}: {
  resource: AdmissionResource | LegacyResource;
  /** Called after the delete instead of going to the kind's list page. */
  onDeleted?: () => void;
  name: string;
  uid: string;
  resourceVersion: string;
  enabled: boolean;
  /** Why the identity may not delete (shown on the disabled button). */
  disabledReason?: string;
}) {
  const [open, setOpen] = useState(false);
  const consequence = isLegacyResource(resource)
    ? "stops every hook in it at once; objects created afterwards no longer get them."
    : resource.endsWith("bindings")
      ? "stops its policy from applying where this binding matched."
      : resource.endsWith("policies")
        ? "leaves its bindings pointing at nothing: the policy stops applying."
        : "stops every hook in it at once.";
  const [typed, setTyped] = useState("");
  const router = useRouter();
  const close = () => {
    setOpen(false);
    setTyped("");
  };
  const del = useMutation({
    mutationFn: () => deleteConfiguration(resource, name, { uid, resourceVersion }),
    onSuccess: () =>
      onDeleted ? onDeleted() : router.push(objectPagePath(resource as AdmissionResource)),
  });
  // Keyboard use: opening moves focus into the confirmation, Escape or Cancel closes it and puts
  // focus back on the button that opened it (else focus falls to the page's start).
  const trigger = useRef<HTMLButtonElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const wasOpen = useRef(false);
  useEffect(() => {
    if (open) field.current?.focus();
    else if (wasOpen.current) trigger.current?.focus();
    wasOpen.current = open;
  }, [open]);
  const busy = del.isPending;
  useEffect(() => {
    const d = dialog.current;
    if (!open || busy || !d) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.stopPropagation();
      setOpen(false);
      setTyped("");
    };
    d.addEventListener("keydown", onKey);
    return () => d.removeEventListener("keydown", onKey);
  }, [open, busy]);
  if (!open)
    return (
      <button
        ref={trigger}
        type="button"
        className="danger"
        disabled={!enabled}
        title={enabled ? undefined : (disabledReason ?? "you may not delete this configuration")}
        onClick={() => setOpen(true)}
      >
        Delete…
      </button>
    );
  return (
    <div ref={dialog} className="confirm" role="dialog" aria-label="Confirm delete">
      <p>
        Deleting <strong className="mono">{name}</strong> {consequence} Type its name to confirm.
      </p>
      <label>
        Name
        <input
          ref={field}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          aria-label="Type the name to confirm"
        />
      </label>{" "}
      <button
        type="button"
        className="danger"
        disabled={typed !== name || del.isPending}
        onClick={() => del.mutate()}
      >
        Delete {name}
      </button>{" "}
      <button type="button" onClick={close}>
        Cancel
      </button>
      {del.error ? <ErrorBox error={del.error} /> : null}
    </div>
  );
}
