import { DeadlockPage } from "@/components/namespaces/deadlock-page";

export const metadata = { title: "Deadlocks" };

export default function Page() {
  return <DeadlockPage />;
}
