import { Suspense } from "react";
import { WebhooksListPage } from "@/components/webhooks/webhooks-list-page";
import { TEMPLATES } from "@/lib/webhooks/templates";
import { webhookListSeed } from "@/server/webhooks/list-seed";

const TEMPLATE_MENU = TEMPLATES.map(({ id, title, description }) => ({ id, title, description }));

export default function Page() {
  return (
    <Suspense fallback={<h1>Webhooks</h1>}>
      <SeededList />
    </Suspense>
  );
}

/** Reads the cluster on the server while the shell streams, so the HTML carries the first rows. */
async function SeededList() {
  const seed = await webhookListSeed();
  return <WebhooksListPage seed={seed} templates={TEMPLATE_MENU} />;
}
