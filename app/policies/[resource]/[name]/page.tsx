import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { StaticObjectPage } from "@/components/outside-api/static-object-page";
import { hasStaticSuffix } from "@/lib/admission/model/manifests";
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
  const decoded = decodeURIComponent(name);
  // The API has no object of the reserved suffix: the apiserver loads it from a manifest file.
  if (hasStaticSuffix(decoded)) return <StaticObjectPage resource={resource} name={decoded} />;
  return <PolicyDetailPage resource={resource} name={decoded} />;
}
