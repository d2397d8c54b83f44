import { Suspense } from "react";
import { NamespacesPage } from "@/components/namespaces/namespaces-page";
import { matrixSeedOf, readMatrixLists, type MatrixLists } from "@/server/namespaces/matrix-seed";
import { matrixPreviewSeed } from "@/server/namespaces/matrix-preview-seed";
import type { MatrixPreview } from "@/lib/namespaces/matrix-preview";

type Search = Record<string, string | string[] | undefined>;

export default function Page({ searchParams }: { searchParams: Promise<Search> }) {
  return (
    <Suspense fallback={<h1>Namespaces and exemptions</h1>}>
      <FirstScreen searchParams={searchParams} />
    </Suspense>
  );
}

/**
 * Reads the cluster on the server while the shell streams, and computes the matrix's first
 * screen there (once per cluster state and parameters), so the grid paints from the HTML and the
 * browser needs no round trip. The first screen is a few kilobytes and goes out first; the seed
 * for the live page (megabytes at 10,000 namespaces and 1,000 hooks) is built after it and
 * follows in the same response, replacing it.
 */
async function FirstScreen({ searchParams }: { searchParams: Promise<Search> }) {
  const [lists, search] = await Promise.all([readMatrixLists(), searchParams]);
  const preview = matrixPreviewSeed(lists, search);
  return (
    <Suspense fallback={<NamespacesPage preview={preview} previewContext={lists?.context} />}>
      <WholeMatrix lists={lists} preview={preview} />
    </Suspense>
  );
}

async function WholeMatrix({
  lists,
  preview,
}: {
  lists: MatrixLists | undefined;
  preview: MatrixPreview | undefined;
}) {
  // One turn of the event loop, so the first screen above is flushed before the seed is built.
  await new Promise((resolve) => setImmediate(resolve));
  return <NamespacesPage seed={lists && matrixSeedOf(lists)} preview={preview} />;
}
