import type { Recreation } from "@/lib/admission/provenance/fights";

/**
 * An object deleted and created again lately under the same name: an engine or operator owns it,
 * and an edit made here lasts until it creates it again.
 */
export function RecreatedNotice({
  recreations,
  kind,
  name,
}: {
  recreations: readonly Recreation[] | undefined;
  kind: string;
  name: string;
}) {
  return (
    <>
      {(recreations ?? [])
        .filter((r) => r.kind === kind && r.name === name)
        .map((r) => (
          <p key={r.name} className="warn" data-testid="recreated">
            Deleted and created again {r.cycles.length} time{r.cycles.length === 1 ? "" : "s"}{" "}
            lately (last at {new Date(r.cycles[r.cycles.length - 1]?.createdAt ?? 0).toISOString()})
            {r.by ? `, by ${r.by}` : ""}: an engine or operator owns this configuration, and an edit
            made here lasts until it creates it again.
          </p>
        ))}
    </>
  );
}
