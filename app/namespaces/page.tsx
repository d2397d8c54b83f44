import { afterFirstScreen } from "@/server/kube/collections-seed";
import { NamespacesPage } from "@/components/namespaces/namespaces-page";
import { matrixSeedCollectionsJson, readMatrixLists } from "@/server/namespaces/matrix-seed";
import { matrixPreviewSeed } from "@/server/namespaces/matrix-preview-seed";

export const metadata = { title: "Namespaces" };

type Search = Record<string, string | string[] | undefined>;

/**
 * Reads the cluster on the server and computes the matrix's first screen there (once per cluster
 * state and parameters), so the grid is in the page's first HTML: no Suspense boundary, whose
 * streamed reveal React holds back for 300 ms after the shell has painted. The collections the
 * live matrix starts from (megabytes at 10,000 namespaces and 1,000 hooks) follow in the same
 * response as a promise, after the first screen: the browser paints before it parses them.
 */
export default async function Page({ searchParams }: { searchParams: Promise<Search> }) {
  const [lists, search] = await Promise.all([readMatrixLists(), searchParams]);
  return (
    <NamespacesPage
      head={lists && { context: lists.context, overview: lists.overview }}
      preview={matrixPreviewSeed(lists, search)}
      collections={lists && afterFirstScreen(() => matrixSeedCollectionsJson(lists))}
    />
  );
}
