import { InitializersPage } from "@/components/legacy-admission/initializers-page";

export const metadata = { title: "Initializers" };

export default function Page() {
  return <InitializersPage />;
}
