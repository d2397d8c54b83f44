import { Suspense } from "react";
import { NamespaceDetailPage } from "@/components/namespaces/namespace-detail-page";
import { titleFromName } from "@/lib/page-title";

export const generateMetadata = titleFromName((name) => `Namespace ${name}`);

export default async function Page({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return (
    <Suspense fallback={<h1>Namespace</h1>}>
      <NamespaceDetailPage name={decodeURIComponent(name)} />
    </Suspense>
  );
}
