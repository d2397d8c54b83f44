import { PredictPage } from "@/components/predict/predict-page";

export const metadata = { title: "Predict" };

export const dynamic = "force-dynamic";

export default async function Page({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) {
    if (typeof v === "string") q.append(k, v);
    else for (const x of v ?? []) q.append(k, x);
  }
  // Keyed by the query: a link to another request (another hook's `for`) opens afresh.
  return <PredictPage key={q.toString()} initialQuery={q.toString()} />;
}
