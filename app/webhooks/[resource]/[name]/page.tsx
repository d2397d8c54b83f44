import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { isWebhookResource, KIND_OF } from "@/lib/webhooks/resource-kinds";
import { WebhookDetailPage } from "@/components/webhooks/webhook-detail-page";

type Params = { params: Promise<{ resource: string; name: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { resource, name } = await params;
  return isWebhookResource(resource)
    ? { title: `${decodeURIComponent(name)} · ${KIND_OF[resource]}` }
    : {};
}

export default async function Page({
  params,
}: {
  params: Promise<{ resource: string; name: string }>;
}) {
  const { resource, name } = await params;
  if (!isWebhookResource(resource)) notFound();
  return <WebhookDetailPage resource={resource} name={decodeURIComponent(name)} />;
}
