"use client";

import Link from "next/link";
import { TEMPLATES } from "@/lib/webhooks/templates";

/** Links to create a configuration from a template; disabled without create permission. */
export function CreateMenu({ enabled }: { enabled: boolean }) {
  if (!enabled)
    return (
      <button type="button" disabled title="you may not create webhook configurations">
        New from template
      </button>
    );
  return (
    <details className="menu">
      <summary>New from template</summary>
      <ul>
        {TEMPLATES.map((t) => (
          <li key={t.id}>
            <Link href={`/webhooks/new?template=${t.id}`}>{t.title}</Link>
            <span className="muted"> — {t.description}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
