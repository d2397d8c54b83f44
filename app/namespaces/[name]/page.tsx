import type { Metadata } from "next";
import { Suspense } from "react";
import { NamespaceDetailPage } from "@/components/namespaces/namespace-detail-page";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ name: string }>;
}): Promise<Metadata> {
  return { title: `Namespace ${decodeURIComponent((await params).name)}` };
}

export default async function Page({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return (
    <Suspense fallback={<h1>Namespace</h1>}>
      <NamespaceDetailPage name={decodeURIComponent(name)} />
    </Suspense>
  );
}
