import { OverviewPage } from "@/components/overview/overview-page";

export default function Page() {
  return <OverviewPage />;
}
