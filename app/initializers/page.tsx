import { InitializersPage } from "@/components/initializers/initializers-page";

export default function Page() {
  return <InitializersPage />;
}
