import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { isPolicyResource } from "@/lib/webhooks/kinds";
import { EditRoute } from "@/components/editor/edit-route";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ name: string }>;
}): Promise<Metadata> {
  return { title: `Edit ${decodeURIComponent((await params).name)}` };
}

export default async function Page({
  params,
}: {
  params: Promise<{ resource: string; name: string }>;
}) {
  const { resource, name } = await params;
  if (!isPolicyResource(resource)) notFound();
  return <EditRoute target={{ mode: "edit", resource, name: decodeURIComponent(name) }} />;
}
