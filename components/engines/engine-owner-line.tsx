"use client";

import Link from "next/link";
import { useMemo } from "react";
import { engineEditWarning } from "@/lib/engines/edit-warning";
import { engineLabel } from "@/lib/engines/view";

/**
 * The engine panel of a detail page: which policy engine owns the object, the engine policy it
 * carries and the proof, linked to the Engines page. Nothing for an object no engine owns.
 */
export function EngineOwnerLine({ kind, object }: { kind: string; object: unknown }) {
  const w = useMemo(() => engineEditWarning(kind, object), [kind, object]);
  if (!w) return null;
  const o = w.ownership;
  return (
    <p className="callout" data-testid="engine-owner" title={o.evidence.join("\n")}>
      Owned by <Link href="/engines">{engineLabel(w.engine)}</Link>
      {w.changeInstead ? (
        <>
          {" "}
          · {w.sourceHref ? <Link href={w.sourceHref}>{w.changeInstead}</Link> : w.changeInstead}
        </>
      ) : null}{" "}
      · proof:{" "}
      {o.certainty === "proof"
        ? "owner reference"
        : o.certainty === "strong"
          ? "the engine's own marks"
          : "its name only (a guess)"}{" "}
      <span className="hint">— a hand edit is reverted by the engine</span>
    </p>
  );
}
