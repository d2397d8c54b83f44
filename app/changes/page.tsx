import { Suspense } from "react";
import { ChangesPage } from "@/components/history/changes-page";

export const metadata = { title: "Changes" };

export default function Page() {
  return (
    <Suspense fallback={<h1>Admission changes</h1>}>
      <ChangesPage />
    </Suspense>
  );
}
