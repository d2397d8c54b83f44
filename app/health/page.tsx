import { HealthPage } from "@/components/health/health-page";

export const metadata = { title: "Health" };

export default function Page() {
  return <HealthPage />;
}
