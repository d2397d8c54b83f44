import type { Metadata } from "next";
import { Suspense } from "react";
import { notFound } from "next/navigation";
import { HookNamespacesPage } from "@/components/namespaces/hook-namespaces-page";
import { HOOK_SOURCES } from "@/lib/namespaces/links";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ name: string }>;
}): Promise<Metadata> {
  return { title: `${decodeURIComponent((await params).name)} · namespaces` };
}

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
