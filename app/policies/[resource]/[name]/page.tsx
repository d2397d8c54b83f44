import { notFound } from "next/navigation";
import { isPolicyResource } from "@/lib/webhooks/kinds";
import { PolicyDetailPage } from "@/components/policies/policy-detail-page";

export default async function Page({
  params,
}: {
  params: Promise<{ resource: string; name: string }>;
}) {
  const { resource, name } = await params;
  if (!isPolicyResource(resource)) notFound();
  return <PolicyDetailPage resource={resource} name={decodeURIComponent(name)} />;
}
