import { Suspense } from "react";
import { NamespacesPage } from "@/components/namespaces/namespaces-page";
import { matrixSeedOf, readMatrixLists } from "@/server/namespaces/matrix-seed";
import { matrixPreviewSeed } from "@/server/namespaces/matrix-preview-seed";

type Search = Record<string, string | string[] | undefined>;

export default function Page({ searchParams }: { searchParams: Promise<Search> }) {
  return (
    <Suspense fallback={<h1>Namespaces and exemptions</h1>}>
      <SeededMatrix searchParams={searchParams} />
    </Suspense>
  );
}

/**
 * Reads the cluster on the server while the shell streams, and computes the matrix's first
 * screen there (once per cluster state and parameters), so the grid paints from the HTML and the
 * browser needs no round trip.
 */
async function SeededMatrix({ searchParams }: { searchParams: Promise<Search> }) {
  const [lists, search] = await Promise.all([readMatrixLists(), searchParams]);
  return (
    <NamespacesPage
      seed={lists && matrixSeedOf(lists)}
      preview={matrixPreviewSeed(lists, search)}
    />
  );
}
