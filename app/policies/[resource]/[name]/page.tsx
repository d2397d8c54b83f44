import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { isPolicyResource, KIND_OF } from "@/lib/webhooks/resource-kinds";
import { PolicyDetailPage } from "@/components/policies/policy-detail-page";

type Params = { params: Promise<{ resource: string; name: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { resource, name } = await params;
  return isPolicyResource(resource)
    ? { title: `${decodeURIComponent(name)} · ${KIND_OF[resource]}` }
    : {};
}

export default async function Page({
  params,
}: {
  params: Promise<{ resource: string; name: string }>;
}) {
  const { resource, name } = await params;
  if (!isPolicyResource(resource)) notFound();
  return <PolicyDetailPage resource={resource} name={decodeURIComponent(name)} />;
}
