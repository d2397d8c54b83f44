"use client";

import { useEffect, useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { objectPagePath, type AdmissionResource } from "@/lib/webhooks/resource-kinds";
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
  // Keyboard users keep their place: the confirmation takes focus when it opens (the button
  // that opened it is gone), and Cancel or Escape gives it back to that button.
  const nameInput = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const cancelled = useRef(false);
  useEffect(() => {
    if (open) nameInput.current?.focus();
    else if (cancelled.current) {
      cancelled.current = false;
      opener.current?.focus();
    }
  }, [open]);
  const cancel = () => {
    cancelled.current = true;
    setOpen(false);
  };
  const consequence = isLegacyResource(resource)
    ? "stops every hook in it at once; objects created afterwards no longer get them."
    : resource.endsWith("bindings")
      ? "stops its policy from applying where this binding matched."
      : resource.endsWith("policies")
        ? "leaves its bindings pointing at nothing: the policy stops applying."
        : "stops every hook in it at once.";
  const [typed, setTyped] = useState("");
  // The version the admin is confirming: the page is live, so the props move on when someone
  // else changes the object, and deleting with those would delete a change nobody reviewed.
  const [confirming, setConfirming] = useState({ uid, resourceVersion });
  const moved = confirming.uid !== uid || confirming.resourceVersion !== resourceVersion;
  const router = useRouter();
  const del = useMutation({
    mutationFn: () => deleteConfiguration(resource, name, confirming),
    onSuccess: () =>
      onDeleted ? onDeleted() : router.push(objectPagePath(resource as AdmissionResource)),
  });
  const busy = del.isPending;
  useEffect(() => {
    const d = dialog.current;
    if (!open || busy || !d) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.stopPropagation();
      cancelled.current = true;
      setOpen(false);
    };
    d.addEventListener("keydown", onKey);
    return () => d.removeEventListener("keydown", onKey);
  }, [open, busy]);
  if (!open)
    return (
      <button
        ref={opener}
        type="button"
        className="danger"
        disabled={!enabled}
        title={enabled ? undefined : (disabledReason ?? "you may not delete this configuration")}
        onClick={() => {
          setConfirming({ uid, resourceVersion });
          setTyped("");
          del.reset();
          setOpen(true);
        }}
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
          ref={nameInput}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          aria-label="Type the name to confirm"
        />
      </label>{" "}
      {moved ? (
        <div className="alert" role="alert">
          {confirming.uid !== uid
            ? `${name} was deleted and created again since you opened this`
            : `${name} changed since you opened this (resourceVersion ${confirming.resourceVersion} → ${resourceVersion})`}
          : the delete is held. Review the page, then{" "}
          <button
            type="button"
            onClick={() => {
              setConfirming({ uid, resourceVersion });
              setTyped("");
              del.reset();
            }}
          >
            Confirm the current version
          </button>
        </div>
      ) : null}
      <button
        type="button"
        className="danger"
        disabled={typed !== name || moved || del.isPending}
        onClick={() => del.mutate()}
      >
        Delete {name}
      </button>{" "}
      <button type="button" onClick={cancel}>
        Cancel
      </button>
      {del.error ? <ErrorBox error={del.error} /> : null}
    </div>
  );
}
