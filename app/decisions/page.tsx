import { Suspense } from "react";
import { DecisionsPage } from "@/components/decisions/decisions-page";

export const metadata = { title: "Decisions" };

export default function Page() {
  return (
    <Suspense fallback={<h1>Admission decisions</h1>}>
      <DecisionsPage />
    </Suspense>
  );
}
