import { Suspense } from "react";
import { NamespacesPage } from "@/components/namespaces/namespaces-page";

export default function Page() {
  return (
    <Suspense fallback={<h1>Namespaces and exemptions</h1>}>
      <NamespacesPage />
    </Suspense>
  );
}
