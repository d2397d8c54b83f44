import { notFound } from "next/navigation";
import { TimelinePage } from "@/components/history/timeline-page";
import { isHistoryKind } from "@/lib/admission/history/kinds";
import { titleFromName } from "@/lib/page-title";
import { timelineSeed } from "@/server/history/page-seed";

export const generateMetadata = titleFromName((name) => `History of ${name}`);

/**
 * Reads the newest page of the object's changes (with their diffs) on the server, so the first
 * screen is in the page's first HTML; the live timeline starts from it and reads older pages on
 * demand. Without a seed (not allowed, too slow, failed) the browser reads the API as before.
 */
export default async function Page({
  params,
}: {
  params: Promise<{ kind: string; name: string }>;
}) {
  const { kind, name } = await params;
  if (!isHistoryKind(kind)) notFound();
  const decoded = decodeURIComponent(name);
  return <TimelinePage kind={kind} name={decoded} seed={await timelineSeed(kind, decoded)} />;
}
