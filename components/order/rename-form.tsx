"use client";

import { useEffect, useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { RenameError, renameConfiguration } from "@/lib/queries/webhooks";
import type { RenameStep } from "@/lib/api/webhooks";
import type { WebhookResource } from "@/lib/webhooks/resource-kinds";
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";
import { ErrorBox } from "@/components/ui/error-box";

/**
 * Moves a configuration in the order by renaming it (configurations run in name order):
 * create the new name, verify, delete the old — rolled back on any failure, every step shown.
 */
export function RenameForm({
  resource,
  name,
  resourceVersion,
  names,
  before = 0,
  canRename,
  disabledReason,
  onResult,
}: {
  /** Reported at page level: after a rename this configuration's row is gone. */
  onResult: (r: {
    ok: boolean;
    from: string;
    to: string;
    steps: RenameStep[];
    error?: Error;
  }) => void;
  resource: WebhookResource | LegacyResource;
  name: string;
  resourceVersion: string;
  /** Every configuration name of this kind, in order. */
  names: string[];
  /**
   * How many configurations the apiserver calls before all of `names` whatever their names (the
   * static ones, loaded from manifest files): positions count them too.
   */
  before?: number;
  canRename: boolean;
  /** Shown on the disabled button: why the identity may not rename. */
  disabledReason?: string;
}) {
  const [open, setOpen] = useState(false);
  // Keyboard users keep their place: the form takes focus when it opens (the button that opened
  // it is gone), and Close gives it back to that button.
  const nameInput = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const closed = useRef(false);
  useEffect(() => {
    if (open) nameInput.current?.focus();
    else if (closed.current) {
      closed.current = false;
      opener.current?.focus();
    }
  }, [open]);
  const [newName, setNewName] = useState(name);
  const [steps, setSteps] = useState<RenameStep[]>([]);
  const rename = useMutation({
    mutationFn: () => renameConfiguration(resource, name, newName, resourceVersion),
    onSuccess: (r) => onResult({ ok: true, from: name, to: newName, steps: r.steps }),
    onError: (e) => {
      setSteps(e instanceof RenameError ? e.steps : []);
      onResult({
        ok: false,
        from: name,
        to: newName,
        steps: e instanceof RenameError ? e.steps : [],
        error: e,
      });
    },
  });
  if (!open)
    return (
      <button
        ref={opener}
        type="button"
        disabled={!canRename}
        title={canRename ? undefined : disabledReason}
        onClick={() => setOpen(true)}
        aria-label={`Rename ${name}`}
      >
        Rename…
      </button>
    );
  const others = names.filter((n) => n !== name);
  const from = before + names.indexOf(name) + 1;
  const to = before + [...others, newName].sort().indexOf(newName) + 1;
  return (
    <div className="rename" role="group" aria-label={`Rename ${name}`}>
      <label>
        New name
        <input
          ref={nameInput}
          value={newName}
          onChange={(e) => setNewName(e.target.value.trim())}
        />
      </label>
      <span className="hint">
        {newName === name
          ? "same name"
          : others.includes(newName)
            ? `${newName} exists already`
            : `moves from position ${from} to ${to} of ${before + names.length}`}
      </span>
      <button
        type="button"
        className="primary"
        disabled={newName === name || !newName || rename.isPending}
        onClick={() => rename.mutate()}
      >
        Rename safely
      </button>
      <button
        type="button"
        onClick={() => {
          closed.current = true;
          setOpen(false);
        }}
      >
        Close
      </button>
      {steps.length > 0 ? (
        <ol className="steps" aria-label="Rename steps">
          {steps.map((s, i) => (
            <li key={i} className={s.ok ? "good" : "bad"}>
              {s.ok ? "✓" : "✗"} {s.step}
              {s.message ? `: ${s.message}` : ""}
            </li>
          ))}
        </ol>
      ) : null}
      {rename.error ? <ErrorBox error={rename.error} /> : null}
    </div>
  );
}
