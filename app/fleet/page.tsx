import { FleetPage } from "@/components/fleet/fleet-page";

export const metadata = { title: "Fleet" };

export default function Page() {
  return <FleetPage />;
}
