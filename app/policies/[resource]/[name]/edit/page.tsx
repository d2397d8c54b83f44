import { notFound } from "next/navigation";
import { isPolicyResource } from "@/lib/webhooks/resource-kinds";
import { EditRoute } from "@/components/editor/edit-route";
import { titleFromName } from "@/lib/page-title";

export const generateMetadata = titleFromName((name) => `Edit ${name}`);

export default async function Page({
  params,
}: {
  params: Promise<{ resource: string; name: string }>;
}) {
  const { resource, name } = await params;
  if (!isPolicyResource(resource)) notFound();
  return <EditRoute target={{ mode: "edit", resource, name: decodeURIComponent(name) }} />;
}
