"use client";

import Link from "next/link";
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
    <details className="menu">
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
