import { HealthPage } from "@/components/health/health-page";

export default function Page() {
  return <HealthPage />;
}
