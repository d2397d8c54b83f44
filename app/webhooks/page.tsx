import { Suspense } from "react";
import { WebhooksListPage } from "@/components/webhooks/webhooks-list-page";
import { WebhooksListPreview } from "@/components/webhooks/webhooks-list-preview";
import { TEMPLATES } from "@/lib/webhooks/templates";
import { webhookListPreview } from "@/lib/webhooks/list-preview";
import { webhookListSeed, type WebhookListSeed } from "@/server/webhooks/list-seed";

const TEMPLATE_MENU = TEMPLATES.map(({ id, title, description }) => ({ id, title, description }));

type Search = Record<string, string | string[] | undefined>;

export default function Page({ searchParams }: { searchParams: Promise<Search> }) {
  return (
    <Suspense fallback={<h1>Webhooks</h1>}>
      <FirstScreen searchParams={searchParams} />
    </Suspense>
  );
}

/**
 * Reads the cluster on the server while the shell streams, so the HTML carries the first rows:
 * the first screen (a few kilobytes) goes out first, and the seed the live list starts from
 * (every configuration: megabytes at 10,000 hooks) follows in the same response, replacing it.
 */
async function FirstScreen({ searchParams }: { searchParams: Promise<Search> }) {
  const [seed, search] = await Promise.all([webhookListSeed(), searchParams]);
  const preview = webhookListPreview(seed, search);
  const list = <WholeList seed={seed} />;
  if (!preview) return list;
  return <Suspense fallback={<WebhooksListPreview preview={preview} />}>{list}</Suspense>;
}

async function WholeList({ seed }: { seed: WebhookListSeed | undefined }) {
  // One turn of the event loop, so the first screen above is flushed before the seed is.
  await new Promise((resolve) => setImmediate(resolve));
  return <WebhooksListPage seed={seed} templates={TEMPLATE_MENU} />;
}
