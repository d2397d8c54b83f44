import type { ManifestOrigin } from "@/lib/admission/model/manifests";

/** The file's last path segment: what fits in a row (the whole path is in the title). */
function baseName(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1);
}

/**
 * "static" and the file, for a hook or policy the apiserver loads from a manifest directory
 * (an object without an origin is an API object: nothing is shown).
 */
export function StaticBadge({
  origin,
  withFile = true,
}: {
  origin: ManifestOrigin | undefined;
  withFile?: boolean;
}) {
  if (!origin) return null;
  const where = origin.file ?? origin.dir;
  const title = `Loaded by the apiserver's ${origin.plugin} plugin from ${
    where ?? "its static manifest directory"
  }, not from the API: it runs before the API's hooks and policies of its plugin, and is changed by editing that file.`;
  return (
    <>
      <span className="badge static" title={title} data-testid="static-badge">
        static
      </span>
      {withFile && origin.file ? (
        <span className="mono muted static-file" title={origin.file}>
          {baseName(origin.file)}
        </span>
      ) : null}
    </>
  );
}
