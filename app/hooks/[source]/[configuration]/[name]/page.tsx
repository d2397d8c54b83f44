import { Suspense } from "react";
import { notFound } from "next/navigation";
import { HookNamespacesPage } from "@/components/namespaces/hook-namespaces-page";
import { HOOK_SOURCES } from "@/lib/namespaces/links";
import { titleFromName } from "@/lib/page-title";

export const generateMetadata = titleFromName((name) => `${name} · namespaces`);

export default async function Page({
  params,
}: {
  params: Promise<{ source: string; configuration: string; name: string }>;
}) {
  const p = await params;
  const source = HOOK_SOURCES.find((s) => s === p.source);
  if (!source) notFound();
  return (
    <Suspense fallback={<h1>Hook</h1>}>
      <HookNamespacesPage
        source={source}
        configuration={decodeURIComponent(p.configuration)}
        name={decodeURIComponent(p.name)}
      />
    </Suspense>
  );
}
