import { Suspense } from "react";
import { ChangesPage } from "@/components/history/changes-page";
import { recentFilterOf } from "@/lib/admission/history/recent-filter";
import { recentChangesSeed } from "@/server/history/page-seed";

export const metadata = { title: "Changes" };

type Search = Record<string, string | string[] | undefined>;

/**
 * Reads the newest changes for the URL's filter on the server, so the first screen is in the
 * page's first HTML; the live page starts from it (when the tab's context and filter are the
 * seed's) and reads older pages, or other filters, from the API.
 */
export default async function Page({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) if (typeof v === "string") q.set(k, v);
  const seed = await recentChangesSeed(recentFilterOf(q));
  return (
    <Suspense fallback={<h1>Admission changes</h1>}>
      <ChangesPage seed={seed} />
    </Suspense>
  );
}
