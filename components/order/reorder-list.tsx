"use client";

import { useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import type { ConfigObject } from "@/lib/api/webhooks";
import { writeConfiguration } from "@/lib/queries/webhooks";
import type { WebhookResource } from "@/lib/webhooks/resource-kinds";
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";
import { ErrorBox } from "@/components/ui/error-box";
import { moveItem } from "@/lib/admission/historical/initializers";

/**
 * The hooks of one configuration in call order, reorderable by drag or by keyboard
 * (Alt+↑/↓ on a hook). A new order is shown as a before/after diff and saved with the
 * resourceVersion precondition, so a concurrent change is refused rather than overwritten.
 */
export function ReorderList({
  resource,
  config,
  canUpdate,
  firstIndex,
  hooksField = "webhooks",
}: {
  resource: WebhookResource | LegacyResource;
  /** The list holding the hooks (`initializers` for an InitializerConfiguration). */
  hooksField?: string;
  config: ConfigObject;
  canUpdate: boolean;
  /** Stage index of this configuration's first hook (for the numbers shown). */
  firstIndex: number;
}) {
  const hooks = (Array.isArray(config[hooksField]) ? config[hooksField] : []) as Array<
    Record<string, unknown>
  >;
  const stored = hooks.map((h) => String(h.name ?? ""));
  // A pending order is only valid for the hook list it was made from. Another client's change to
  // the hooks' fields keeps it (it is saved onto the newest version, their change included); a
  // change to the list itself (hooks added, removed or reordered) drops it, and says so.
  const signature = JSON.stringify(stored);
  const [pending, setPending] = useState<{ signature: string; order: number[] } | undefined>(
    undefined,
  );
  const order = pending?.signature === signature ? pending.order : undefined;
  const dropped = pending !== undefined && pending.signature !== signature;
  const setOrder = (o: number[] | undefined) => setPending(o ? { signature, order: o } : undefined);
  // The hook being dragged, by name, and the hook of this list it would be dropped on. By name, not
  // position: a live update can reorder the list while the pointer is down, and the drop then moves
  // the hook dragged from wherever it is now (nothing when it is gone), never the hook that took
  // its old place.
  const [dragged, setDragged] = useState<string | undefined>(undefined);
  const [over, setOver] = useState<string | undefined>(undefined);
  const endDrag = () => {
    setDragged(undefined);
    setOver(undefined);
  };
  const dragOf = (hook: string | undefined) =>
    hook === undefined
      ? undefined
      : hook === dragged
        ? "source"
        : hook === over
          ? "target"
          : undefined;
  const [announce, setAnnounce] = useState("");
  // The Save and Cancel buttons go away with the diff: focus returns to the hook last moved, so
  // a keyboard user is not sent back to the top of the page.
  const handles = useRef(new Map<string, HTMLButtonElement>());
  const lastMoved = useRef<string | undefined>(undefined);
  const refocus = () => {
    const el = lastMoved.current ? handles.current.get(lastMoved.current) : undefined;
    // After React has removed the diff (the button that had focus).
    if (el) setTimeout(() => el.focus(), 0);
  };
  const current = order ?? stored.map((_, i) => i);
  const changed = order !== undefined && order.some((v, i) => v !== i);
  const name = config.metadata?.name ?? "";
  const save = useMutation({
    mutationFn: () => {
      const reordered = current.map((i) => hooks[i] as Record<string, unknown>);
      const metadata = { ...config.metadata };
      delete metadata.managedFields;
      return writeConfiguration(
        resource,
        name,
        { ...config, metadata, [hooksField]: reordered },
        false,
      );
    },
    onSuccess: () => {
      setOrder(undefined);
      refocus();
      setAnnounce(`Saved the new order of ${name}.`);
    },
  });

  const moveTo = (from: number, to: number) => {
    if (to < 0 || to >= current.length || from === to) return;
    setOrder(moveItem(current, from, to));
    lastMoved.current = stored[current[from] ?? 0];
    setAnnounce(`${stored[current[from] ?? 0]} moved to position ${to + 1} of ${current.length}`);
  };

  return (
    <div className="reorder">
      <ol className="hook-order" aria-label={`Hooks of ${name}`}>
        {current.map((orig, pos) => (
          <li
            key={stored[orig] ?? orig}
            draggable={canUpdate}
            data-testid={`hook-item-${stored[orig]}`}
            // Where a drag stands (styled, and read by the tests): the hook dragged, and the hook
            // it would be dropped on.
            data-drag={dragOf(stored[orig])}
            onDragStart={(e) => {
              setDragged(stored[orig]);
              setOver(undefined);
              e.dataTransfer.effectAllowed = "move";
              e.dataTransfer.setData("text/plain", String(pos));
            }}
            // Only a hook of this list may be dropped here: the position another list's drag
            // carries would move an unrelated hook of this one.
            onDragOver={(e) => {
              if (!canUpdate || dragged === undefined) return;
              e.preventDefault();
              if (over !== stored[orig]) setOver(stored[orig]);
            }}
            onDragLeave={(e) => {
              // Into one of its own children is not away from it.
              if (e.currentTarget.contains(e.relatedTarget as Node | null)) return;
              setOver((o) => (o === stored[orig] ? undefined : o));
            }}
            onDrop={(e) => {
              e.preventDefault();
              const from = current.findIndex((i) => stored[i] === dragged);
              if (dragged !== undefined && from >= 0) moveTo(from, pos);
              endDrag();
            }}
            onDragEnd={endDrag}
          >
            <span className="idx">{firstIndex + pos + 1}</span>
            <button
              type="button"
              className="hook-handle mono"
              ref={(el) => {
                const key = stored[orig] ?? "";
                if (el) handles.current.set(key, el);
                else handles.current.delete(key);
              }}
              disabled={!canUpdate}
              aria-label={`${stored[orig]}, position ${pos + 1} of ${current.length}; Alt+Up or Alt+Down moves it`}
              onKeyDown={(e) => {
                if (!e.altKey) return;
                if (e.key === "ArrowUp") {
                  e.preventDefault();
                  moveTo(pos, pos - 1);
                } else if (e.key === "ArrowDown") {
                  e.preventDefault();
                  moveTo(pos, pos + 1);
                }
              }}
            >
              {canUpdate ? <span aria-hidden="true">⠿ </span> : null}
              {stored[orig]}
            </button>
            {orig !== pos && order ? <span className="moved">moved from {orig + 1}</span> : null}
          </li>
        ))}
      </ol>
      <p className="sr-only" aria-live="polite">
        {announce}
      </p>
      {dropped ? (
        <p className="alert" role="alert">
          The hooks of {name} were changed by someone else while you were reordering them: your
          unsaved order was dropped. The list above is the stored order now; reorder it again.{" "}
          <button type="button" onClick={() => setOrder(undefined)}>
            Dismiss
          </button>
        </p>
      ) : null}
      {changed ? (
        <div className="order-diff" aria-label={`New order of ${name}`}>
          <div>
            <h4>Stored order</h4>
            <ol>
              {stored.map((n) => (
                <li key={n} className="mono">
                  {n}
                </li>
              ))}
            </ol>
          </div>
          <div>
            <h4>New order</h4>
            <ol>
              {current.map((orig, pos) => (
                <li key={orig} className={orig !== pos ? "mono changed" : "mono"}>
                  {stored[orig]}
                </li>
              ))}
            </ol>
          </div>
          <div className="actions">
            <button
              type="button"
              className="primary"
              disabled={save.isPending}
              onClick={() => save.mutate()}
            >
              Save order of {name}
            </button>
            <button
              type="button"
              onClick={() => {
                setOrder(undefined);
                refocus();
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {save.error ? <ErrorBox error={save.error} /> : null}
    </div>
  );
}
