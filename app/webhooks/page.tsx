import { Suspense } from "react";
import { WebhooksListPage } from "@/components/webhooks/webhooks-list-page";

export default function Page() {
  return (
    <Suspense fallback={<h1>Webhooks</h1>}>
      <WebhooksListPage />
    </Suspense>
  );
}
