import { afterFirstScreen } from "@/server/kube/collections-seed";
import { WebhooksListPage } from "@/components/webhooks/webhooks-list-page";
import { TEMPLATES } from "@/lib/webhooks/templates";
import {
  readWebhookLists,
  webhookListPreview,
  webhookSeedCollectionsJson,
} from "@/server/webhooks/list-seed";

export const metadata = { title: "Webhooks" };

const TEMPLATE_MENU = TEMPLATES.map(({ id, title, description }) => ({ id, title, description }));

type Search = Record<string, string | string[] | undefined>;

/**
 * Reads the cluster on the server and cuts the list's first screen there (once per cluster state
 * and list state), so the rows are in the page's first bytes of HTML: no Suspense boundary, whose
 * streamed reveal React holds back, and no page data in front of them. The configurations the live
 * list starts from (megabytes at 10,000 hooks) follow in the same response as a promise, after the
 * first screen: the browser paints before it parses them.
 */
export default async function Page({ searchParams }: { searchParams: Promise<Search> }) {
  const [lists, search] = await Promise.all([readWebhookLists(), searchParams]);
  return (
    <WebhooksListPage
      head={lists && { context: lists.context, overview: lists.overview }}
      preview={webhookListPreview(lists, search)}
      collections={lists && afterFirstScreen(() => webhookSeedCollectionsJson(lists))}
      templates={TEMPLATE_MENU}
    />
  );
}
