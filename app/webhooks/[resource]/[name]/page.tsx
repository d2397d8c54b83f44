import { notFound } from "next/navigation";
import { isWebhookResource } from "@/lib/webhooks/kinds";
import { WebhookDetailPage } from "@/components/webhooks/webhook-detail-page";

export default async function Page({
  params,
}: {
  params: Promise<{ resource: string; name: string }>;
}) {
  const { resource, name } = await params;
  if (!isWebhookResource(resource)) notFound();
  return <WebhookDetailPage resource={resource} name={decodeURIComponent(name)} />;
}
