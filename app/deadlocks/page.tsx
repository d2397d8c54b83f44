import { DeadlockPage } from "@/components/namespaces/deadlock-page";

export default function Page() {
  return <DeadlockPage />;
}
