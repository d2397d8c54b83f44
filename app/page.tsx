import { OverviewPage } from "@/components/overview/overview-page";

// (The layout's title template applies to the segments below it, not to its own page.)
export const metadata = { title: "Overview · Portcullis" };

export default function Page() {
  return <OverviewPage />;
}
