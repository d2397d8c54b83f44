import { EnginesPage } from "@/components/engines/engines-page";

export const metadata = { title: "Engines" };

export default function Page() {
  return <EnginesPage />;
}
