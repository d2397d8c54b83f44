import { notFound } from "next/navigation";
import { isPolicyResource } from "@/lib/webhooks/resource-kinds";
import { EditRoute } from "@/components/editor/edit-route";

export const metadata = { title: "New admission policy" };

/**
 * New policy or binding: `?template=<id>` (with `&policy=<name>` for a binding template, which
 * then binds that policy), `?from=<resource>/<name>` (duplicate) or
 * `?restore=<change id>&resource=<resource>` (a deleted one re-created from its last known state
 * in the change history).
 */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<{
    template?: string;
    from?: string;
    policy?: string;
    restore?: string;
    resource?: string;
  }>;
}) {
  const sp = await searchParams;
  const restore = Number(sp.restore);
  if (sp.restore !== undefined) {
    const resource = sp.resource ?? "";
    if (!Number.isSafeInteger(restore) || restore < 1 || !isPolicyResource(resource)) notFound();
    return <EditRoute target={{ mode: "recreate", resource, restore }} />;
  }
  if (sp.from) {
    const [resource, name] = sp.from.split("/");
    if (!resource || !name || !isPolicyResource(resource)) notFound();
    return <EditRoute target={{ mode: "duplicate", resource, name }} />;
  }
  return (
    <EditRoute
      target={{ mode: "template", templateId: sp.template ?? "require-labels", policy: sp.policy }}
    />
  );
}
