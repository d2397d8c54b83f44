import { Suspense } from "react";
import { NamespacesPage } from "@/components/namespaces/namespaces-page";
import { matrixSeed, type MatrixSeed } from "@/server/namespaces/matrix-seed";
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
 * screen there, so the grid paints from the HTML and the browser needs no round trip. The first
 * screen is a few kilobytes and goes out first; the whole seed (megabytes at 10,000 namespaces and
 * 1,000 hooks) follows in the same response and replaces it with the live page.
 */
async function FirstScreen({ searchParams }: { searchParams: Promise<Search> }) {
  const [seed, search] = await Promise.all([matrixSeed(), searchParams]);
  const preview = matrixPreviewSeed(seed, search);
  return (
    <Suspense fallback={<NamespacesPage preview={preview} previewContext={seed?.context} />}>
      <WholeMatrix seed={seed} preview={preview} />
    </Suspense>
  );
}

async function WholeMatrix({
  seed,
  preview,
}: {
  seed: MatrixSeed | undefined;
  preview: MatrixPreview | undefined;
}) {
  // One turn of the event loop, so the first screen above is flushed before this is serialized.
  await new Promise((resolve) => setImmediate(resolve));
  return <NamespacesPage seed={seed} preview={preview} />;
}
