import { notFound } from "next/navigation";
import { isWebhookResource } from "@/lib/webhooks/resource-kinds";
import { EditRoute } from "@/components/editor/edit-route";

export const metadata = { title: "New webhook configuration" };

/** New configuration: `?template=<id>` or `?from=<resource>/<name>` (duplicate). */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<{ template?: string; from?: string }>;
}) {
  const sp = await searchParams;
  if (sp.from) {
    const [resource, name] = sp.from.split("/");
    if (!resource || !name || !isWebhookResource(resource)) notFound();
    return <EditRoute target={{ mode: "duplicate", resource, name }} />;
  }
  return (
    <EditRoute target={{ mode: "template", templateId: sp.template ?? "validating-runlevel" }} />
  );
}
