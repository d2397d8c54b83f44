import { notFound } from "next/navigation";
import { isPolicyResource } from "@/lib/webhooks/resource-kinds";
import { EditRoute } from "@/components/editor/edit-route";

export const metadata = { title: "New admission policy" };

/**
 * New policy or binding: `?template=<id>` (with `&policy=<name>` for a binding template, which
 * then binds that policy) or `?from=<resource>/<name>` (duplicate).
 */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<{ template?: string; from?: string; policy?: string }>;
}) {
  const sp = await searchParams;
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
