"use client";

import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import type { WebhookTemplate } from "@/lib/webhooks/templates";

/** What the menu shows of a template (the server passes these, so the YAML stays out of the page's JavaScript). */
export type TemplateEntry = Pick<WebhookTemplate, "id" | "title" | "description">;

/** Links to create a configuration from a template; disabled without create permission. */
export function CreateMenu({
  enabled,
  templates,
  base = "/webhooks",
}: {
  enabled: boolean;
  templates: readonly TemplateEntry[];
  /** The section whose `new` page opens the template. */
  base?: "/webhooks" | "/policies";
}) {
  const menu = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(false);
  // A menu closes on Escape (focus back on its button) and on a click or focus outside it.
  useEffect(() => {
    if (!open) return;
    const outside = (e: Event) => {
      const d = menu.current;
      if (d && e.target instanceof Node && !d.contains(e.target)) d.open = false;
    };
    const onKey = (e: KeyboardEvent) => {
      const d = menu.current;
      if (e.key !== "Escape" || !d?.open) return;
      d.open = false;
      d.querySelector("summary")?.focus();
    };
    document.addEventListener("pointerdown", outside);
    document.addEventListener("focusin", outside);
    menu.current?.addEventListener("keydown", onKey);
    const d = menu.current;
    return () => {
      document.removeEventListener("pointerdown", outside);
      document.removeEventListener("focusin", outside);
      d?.removeEventListener("keydown", onKey);
    };
  }, [open]);
  if (!enabled)
    return (
      <button
        type="button"
        disabled
        title={`you may not create ${base === "/policies" ? "admission policies" : "webhook configurations"}`}
      >
        New from template
      </button>
    );
  return (
    <details ref={menu} className="menu" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>New from template</summary>
      <ul>
        {templates.map((t) => (
          <li key={t.id}>
            <Link href={`${base}/new?template=${t.id}`}>{t.title}</Link>
            <span className="muted"> — {t.description}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
