import { notFound } from "next/navigation";
import { TimelinePage } from "@/components/history/timeline-page";
import { isHistoryKind } from "@/lib/admission/history/kinds";
import { titleFromName } from "@/lib/page-title";

export const generateMetadata = titleFromName((name) => `History of ${name}`);

export default async function Page({
  params,
}: {
  params: Promise<{ kind: string; name: string }>;
}) {
  const { kind, name } = await params;
  if (!isHistoryKind(kind)) notFound();
  return <TimelinePage kind={kind} name={decodeURIComponent(name)} />;
}
