import { Suspense } from "react";
import { NamespacesPage } from "@/components/namespaces/namespaces-page";
import { matrixSeed } from "@/server/namespaces/matrix-seed";

export default function Page() {
  return (
    <Suspense fallback={<h1>Namespaces and exemptions</h1>}>
      <SeededMatrix />
    </Suspense>
  );
}

/** Reads the cluster on the server while the shell streams, so the matrix needs no round trip. */
async function SeededMatrix() {
  const seed = await matrixSeed();
  return <NamespacesPage seed={seed} />;
}
