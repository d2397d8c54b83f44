import { InitializersPage } from "@/components/legacy-admission/initializers-page";

export default function Page() {
  return <InitializersPage />;
}
