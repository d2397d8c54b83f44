import type { ManifestOrigin } from "@/lib/admission/model/manifests";

/**
 * Why a static hook or policy cannot be edited, renamed, reordered or deleted here: the apiserver
 * loads it from a file, and refuses the reserved suffix `.static.k8s.io` to every write through
 * the API.
 */
export function StaticReadOnly({ origin, what }: { origin: ManifestOrigin; what: string }) {
  return (
    <p className="callout" role="note" data-testid="static-read-only">
      <strong>Read-only: this {what} is configured outside the API.</strong> The apiserver&apos;s{" "}
      {origin.plugin} plugin loads it from{" "}
      <span className="mono">{origin.file ?? origin.dir ?? "its static manifest directory"}</span>{" "}
      and reloads it when the file changes. Its name ends with the reserved suffix{" "}
      <span className="mono">.static.k8s.io</span>, which the apiserver refuses to every create,
      update and delete through the API, so there is nothing to edit, reorder or delete here: change
      the file on the control plane&apos;s hosts instead.
    </p>
  );
}
